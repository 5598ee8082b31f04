import { ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type * as z from 'zod';
import { isMissingQueue, type CommandDelivery } from '../commands/delivery';
import { openControllerMessage } from '../gameservers/controller-channel';
import { assignMethod, rpcMethods } from '../protocol/game-methods';
import { assignQueueName } from '../protocol/queue-names';
import type { SidecarKeys } from '../protocol/sidecar-channel';
import type { HandOver } from '../rooms/room-store';

/** The game's answer to `assign`, as the sidecar relayed it. */
export type AssignOutcome = { readonly accepted: true } | { readonly accepted: false; readonly detail: string };

/** What came back on a standby server's assign queue for one `assign`. */
type AssignAnswer =
  | { readonly kind: 'answered'; readonly result: unknown }
  | { readonly kind: 'failed'; readonly error: { readonly code: number; readonly message: string } }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'gone' };

/**
 * Waits up to `waitMs` for the sidecar's answer to the `assign` `commandId` of `roomId` on
 * that room's assign queue.
 */
export type AssignAnswers = (roomId: string, commandId: string, waitMs: number) => Promise<AssignAnswer>;

export interface AssignDependencies {
  readonly deliver: CommandDelivery;
  readonly answers: AssignAnswers;
  readonly newId: () => string;
}

/** How long a create waits for the game's answer to `assign` before it starts a server cold. */
const assignTimeoutMs = 5_000;

/** What a standby server is told of the room it now is. */
export interface Assignment {
  readonly roomId: string;
  readonly settings: HandOver['settings'];
  readonly maxPlayers: number;
}

/** The `assign` request's params (docs/game-server-protocol.md). */
export function assignParams(assignment: Assignment): z.input<(typeof rpcMethods)[typeof assignMethod]['params']> {
  return {
    room_id: assignment.roomId,
    room_settings: assignment.settings,
    game_max_players: assignment.maxPlayers,
  };
}

/**
 * Hands a taken standby server its room: the sealed `assign` on the sidecar's reply queue
 * (the sidecar relays it once, whitelist or not, when it was started with STANDBY=1), and
 * the game's answer from the sidecar's assign queue. This is the AWS request-response pattern
 * (a response queue per requester): the answer reaches the waiting create in one SQS hop, not
 * through the request queue's consumer and a record. Accepted only when the game answered
 * `{"status": "OK"}`. Only the create whose take won the server's room calls it
 * (core/pool/warm-pool.ts).
 */
export function assignThroughSidecar(deps: AssignDependencies) {
  return async (assignment: Assignment): Promise<AssignOutcome> => {
    const commandId = deps.newId();
    const deadline = Date.now() + assignTimeoutMs;
    // The answer's long poll starts once SQS has the `assign`, not beside its send: building
    // and signing a second request on this process's one thread would hold the first one back.
    // The game can answer only after its sidecar received the `assign`, and an answer already
    // on the queue when the poll starts is returned at once.
    // A standby server is its room's first (a replacement never comes from the pool): epoch 1.
    const delivered = await deps.deliver(
      assignment.roomId,
      { type: 'command', commandId, method: assignMethod, params: assignParams(assignment) },
      1,
    );
    if (delivered === 'gone') return { accepted: false, detail: 'its sidecar has ended' };
    return outcomeOf(await deps.answers(assignment.roomId, commandId, Math.max(0, deadline - Date.now())));
  };
}

function outcomeOf(got: AssignAnswer): AssignOutcome {
  switch (got.kind) {
    case 'answered':
      // Accepted only with the result the table declares for `assign` (`{"status": "OK"}`).
      return rpcMethods[assignMethod].result.safeParse(got.result).success
        ? { accepted: true }
        : { accepted: false, detail: `the game answered ${JSON.stringify(got.result)?.slice(0, 200)}` };
    case 'failed':
      return { accepted: false, detail: `${got.error.message} (${got.error.code})` };
    case 'timeout':
      return { accepted: false, detail: `no answer within ${assignTimeoutMs / 1000} s` };
    case 'gone':
      return { accepted: false, detail: 'its assign queue is gone' };
  }
}

/**
 * Assign answers over SQS: long-polls `<prefix><roomId>-assign` (its URL from `queueUrl`)
 * until the answer to `commandId` arrives. Only a message MAC'd with the room's channel key,
 * speaking for that room, and answering that command counts; anything else is ignored. The
 * queue is deleted with its sidecar, so nothing is deleted from it here.
 */
export function sqsAssignAnswers(
  sqs: SQSClient,
  replyQueuePrefix: string,
  keysFor: (roomId: string) => Promise<SidecarKeys>,
  queueUrl: (name: string) => Promise<string>,
): AssignAnswers {
  return async (roomId, commandId, waitMs) => {
    const deadline = Date.now() + waitMs;
    // The room's keys are derived while the answer is awaited, not once it has come.
    const keys = keysFor(roomId);
    keys.catch(() => undefined); // Rethrown where the answer is opened; no unhandled rejection meanwhile.
    const keysOf = (id: string) => (id === roomId ? keys : keysFor(id));
    try {
      const url = await queueUrl(assignQueueName(replyQueuePrefix, roomId));
      for (let left = waitMs; left > 0; left = deadline - Date.now()) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: url,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: Math.min(20, Math.ceil(left / 1000)),
            // An answer this one skips (another command's, a forgery) is back within a second,
            // not the queue's default 30.
            VisibilityTimeout: 1,
          }),
          { abortSignal: AbortSignal.timeout(left) },
        );
        for (const message of Messages) {
          const opened = await openControllerMessage(message.Body ?? '', keysOf);
          if (!opened.ok || opened.request.roomId !== roomId) continue;
          const { request } = opened;
          if (request.type !== 'commandResult' || request.commandId !== commandId) continue;
          return 'error' in request && request.error
            ? { kind: 'failed', error: request.error }
            : { kind: 'answered', result: 'result' in request ? request.result : null };
        }
      }
      return { kind: 'timeout' };
    } catch (error) {
      if (isMissingQueue(error)) return { kind: 'gone' };
      if (error instanceof Error && (error.name === 'AbortError' || error.name === 'TimeoutError'))
        return { kind: 'timeout' };
      throw error;
    }
  };
}
