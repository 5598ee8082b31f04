import { QueueDoesNotExist, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sealControllerReply } from '../gameservers/controller-channel';
import type { ControllerReply } from '../protocol/controller-messages';
import { replyQueueName } from '../protocol/queue-names';
import type { SidecarKeys } from '../protocol/sidecar-channel';

export type PlatformCommandMessage = Extract<ControllerReply, { type: 'command' }>;

/** What the platform sends a room's sidecar unasked: a command, or a `stop` (a cost bound). */
type SidecarMessage = Exclude<ControllerReply, { type: 'reply' }>;

/**
 * Hands one message to the sidecar of the room's server of `epoch` (core/rooms/replacement.ts
 * `serverEpochOf`: a replacement server's sidecar reads a queue of its own). Resolves
 * `delivered`, or `gone` when that queue is no more (its sidecar ended and deleted it); other
 * failures throw.
 */
export type SidecarDelivery = (roomId: string, message: SidecarMessage, epoch: number) => Promise<'delivered' | 'gone'>;

/** A `SidecarDelivery` as the command relay and the warm pool use it: commands only. */
export type CommandDelivery = (
  roomId: string,
  command: PlatformCommandMessage,
  epoch: number,
) => Promise<'delivered' | 'gone'>;

/** fauxqs and SQS name a missing queue differently across protocols and SDK versions. */
export const isMissingQueue = (error: unknown): boolean =>
  error instanceof QueueDoesNotExist ||
  (error instanceof Error &&
    (error.name === 'QueueDoesNotExist' || error.name === 'AWS.SimpleQueueService.NonExistentQueue'));

/**
 * Over SQS: the reply queue of the room's server of `epoch` (`<prefix><roomId>`, or
 * `<prefix><roomId>-e<n>` for a replacement: docs/game-server-protocol.md), its URL from
 * `queueUrl`, and what goes on it is sealed with the room's channel key, like the
 * consumer's replies (core/gameservers/controller-channel.ts): only that room's sidecar
 * reads or accepts it.
 */
export function sqsCommandDelivery(
  sqs: SQSClient,
  replyQueuePrefix: string,
  keysFor: (roomId: string) => Promise<SidecarKeys>,
  queueUrl: (name: string) => Promise<string>,
): SidecarDelivery {
  return async (roomId, message, epoch) => {
    try {
      const [url, keys] = await Promise.all([
        queueUrl(replyQueueName(replyQueuePrefix, roomId, epoch)),
        keysFor(roomId),
      ]);
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: sealControllerReply(keys, message) }));
      return 'delivered';
    } catch (error) {
      if (isMissingQueue(error)) return 'gone';
      throw error;
    }
  };
}
