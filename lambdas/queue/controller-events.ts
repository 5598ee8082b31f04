import middy from '@middy/core';
import { QueueDoesNotExist, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { openControllerMessage, sealControllerReply } from '../../core/gameservers/controller-channel';
import { handleControllerRequest } from '../../core/gameservers/controller-events';
import { ServerAddressPendingError } from '../../core/gameservers/errors';
import { childLogger } from '../../core/infra/logger';
import {
  giveUpOnMessage,
  isLastDelivery,
  isRedelivery,
  type GiveUpDependencies,
} from '../../core/gameservers/poison-messages';
import { queueDefinitions } from '../../core/infra/queues';
import type { ControllerReply, ControllerRequest } from '../../core/protocol/controller-messages';
import { isLive } from '../../core/rooms/model';
import { platform } from '../dependencies';

const log = childLogger('controller-events');
/** The redrive policy's count (the CDK stack and the local cloud create the queue from the same definition). */
const maxReceiveCount = queueDefinitions.controllerRequests.deadLetter.maxReceiveCount;

/**
 * On a message's last delivery, a failure fails its room instead of blocking the room's
 * group until the message reaches the dead-letter queue. Returns whether it gave up.
 */
async function givenUp(
  record: SQSRecord,
  request: ControllerRequest,
  error: unknown,
  deps: GiveUpDependencies,
): Promise<boolean> {
  if (!isLastDelivery(record.attributes.ApproximateReceiveCount, maxReceiveCount)) return false;
  log.error('controller message failed on its last delivery; failing the room, message to the dead-letter queue', {
    messageId: record.messageId,
    type: request.type,
    error: error as Error,
  });
  try {
    await giveUpOnMessage(request, deps);
  } catch (giveUpError) {
    log.error('could not fail the room of a dead-lettered message', {
      messageId: record.messageId,
      error: giveUpError as Error,
    });
  }
  return true;
}

/**
 * Consumes the controller request queue (FIFO, room id = message group). Groups are
 * processed side by side, each in order; once a message of a group fails, the rest of that
 * group is handed back too, so nothing overtakes it.
 */
export async function processControllerEvents(event: SQSEvent): Promise<SQSBatchResponse> {
  const p = platform();
  /** Replies are sealed for the room's sidecar: a reply carries player tokens. */
  const replyFor = (roomId: string, record: SQSRecord) => async (replyTo: string, message: ControllerReply) => {
    const body = sealControllerReply(await p.sidecarKeys(roomId), message);
    try {
      await p.sqs.send(new SendMessageCommand({ QueueUrl: replyTo, MessageBody: body }));
    } catch (error) {
      if (!(error instanceof QueueDoesNotExist)) throw error;
      // A live sidecar recreates a queue deleted under it (by something else) as soon as its
      // next poll fails: the first delivery is retried, and the redelivery finds the queue.
      // A queue still missing then was deleted by its sidecar as it ended, with this call in
      // flight; retrying further would hold the room's group, its `exited` included, for
      // every remaining delivery. Once the room has ended nobody is left to answer at all.
      const room = await p.rooms.find(roomId);
      if (room && isLive(room.state) && !isRedelivery(record.attributes.ApproximateReceiveCount)) throw error;
      log.info('reply dropped: the sidecar is gone', {
        roomId,
        correlationId: message.type === 'reply' ? message.correlationId : undefined,
      });
    }
  };
  const groups = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    const group = record.attributes.MessageGroupId ?? record.messageId;
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  const failures: string[] = [];
  await Promise.all(
    [...groups.values()].map(async (records) => {
      for (const [index, record] of records.entries()) {
        let request: ControllerRequest | undefined;
        try {
          const opened = await openControllerMessage(record.body, (roomId) => p.sidecarKeys(roomId));
          if (!opened.ok) {
            // Forged, tampered or malformed: retrying cannot fix it. Dropped with a trace
            // (no key, no MAC), never retried; `rejected` is the field a metric filter counts.
            log.warn('dropping unauthenticated controller message', {
              messageId: record.messageId,
              rejected: opened.reason,
              roomId: opened.roomId,
            });
            continue;
          }
          request = opened.request;
          await handleControllerRequest(request, {
            rooms: p.rooms,
            slots: p.costs.slots,
            pool: p.pool,
            members: p.sessions,
            signToken: p.signToken,
            verifyServerToken: p.verifyPlatformToken,
            reply: replyFor(opened.request.roomId, record),
            sidecarCredentials: p.sidecarCredentials,
            locateServer: p.locateServer,
            now: p.now,
            commands: p.commands,
            messages: p.roomMessages,
            log,
          });
        } catch (error) {
          if (request?.type === 'heartbeat') {
            // A newer heartbeat follows within one interval and says the same, fresher. Handing
            // this one back would hold the room's whole group for a visibility timeout (30 s),
            // and with it every heartbeat behind it: a healthy room would look silent.
            log.warn('heartbeat not applied; the next one supersedes it', {
              messageId: record.messageId,
              roomId: request.roomId,
              error: error as Error,
            });
            continue;
          }
          const reply = request ? replyFor(request.roomId, record) : undefined;
          if (request && reply && (await givenUp(record, request, error, { rooms: p.rooms, reply, now: p.now }))) {
            // Bound for the dead-letter queue; the room is failed, so the rest of its group goes on.
            failures.push(record.messageId);
            continue;
          }
          if (error instanceof ServerAddressPendingError) {
            // Expected while an ECS task's address is not readable yet: no failure of anything.
            log.info('inited waits for the game server address; it will be retried', {
              messageId: record.messageId,
              roomId: error.roomId,
            });
          } else {
            log.error('controller message failed; it will be retried', {
              messageId: record.messageId,
              error: error as Error,
            });
          }
          failures.push(...records.slice(index).map((r) => r.messageId));
          return;
        }
      }
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

export const handler = middy<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: 0 }).handler(processControllerEvents);
