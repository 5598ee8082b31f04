import type { ControllerReply, ControllerRequest, FailureReason } from '../protocol/controller-messages';
import { rpcErrorCodes } from '../protocol/jsonrpc';
import type { RoomStore } from '../rooms/room-store';

/** Why a room fails when one of its messages could not be applied on any delivery. */
const poisonFailureReason: FailureReason = 'platform-error';

/**
 * Whether this delivery is the last the queue makes before its redrive policy moves the
 * message to the dead-letter queue (SQS counts receives from 1; the message moves on the
 * receive after the `maxReceiveCount`th). A missing or unreadable count is not the last.
 */
export function isLastDelivery(approximateReceiveCount: string | undefined, maxReceiveCount: number): boolean {
  const received = Number(approximateReceiveCount);
  return Number.isInteger(received) && received >= maxReceiveCount;
}

/** Whether SQS has handed this message out before (an unreadable count counts as a first delivery). */
export function isRedelivery(approximateReceiveCount: string | undefined): boolean {
  const received = Number(approximateReceiveCount);
  return Number.isInteger(received) && received > 1;
}

export interface GiveUpDependencies {
  readonly rooms: RoomStore;
  readonly reply: (replyTo: string, reply: ControllerReply) => Promise<void>;
  readonly now: () => Date;
}

/**
 * The last delivery of a message failed: it goes to the dead-letter queue, and the room it
 * belongs to must not wait for it forever (a spawning room would stay spawning, its FIFO
 * group blocked). The room is failed with `platform-error` and a sidecar waiting for an
 * answer gets an error at once, instead of timing out. Idempotent: failing a dead room
 * changes nothing. A command result or a game message that cannot be recorded is only dropped.
 */
export async function giveUpOnMessage(request: ControllerRequest, deps: GiveUpDependencies): Promise<void> {
  // A game's answer or message to the owner holds nothing up: only it is lost, not the room.
  if (request.type === 'commandResult' || request.type === 'message') return;
  await deps.rooms.markFailed(request.roomId, poisonFailureReason, deps.now());
  if (request.type !== 'rpc') return;
  await deps.reply(request.replyTo, {
    type: 'reply',
    correlationId: request.correlationId,
    error: {
      code: rpcErrorCodes.roomClosed,
      message: `The platform could not apply ${request.method}; the room has failed (${poisonFailureReason}).`,
    },
  });
}
