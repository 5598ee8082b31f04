import middy from '@middy/core';
import { QueueDoesNotExist, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { openControllerMessage, sealControllerReply } from '../../core/gameservers/controller-channel';
import { handleControllerRequest } from '../../core/gameservers/controller-events';
import { childLogger } from '../../core/infra/logger';
import type { ControllerReply } from '../../core/protocol/controller-messages';
import { MemberStore } from '../../core/reservations/store';
import { isLive } from '../../core/rooms/model';
import { platform } from '../dependencies';

const log = childLogger('controller-events');

/**
 * Consumes the controller request queue (FIFO, room id = message group). Groups are
 * processed side by side, each in order; once a message of a group fails, the rest of that
 * group is handed back too, so nothing overtakes it.
 */
export async function processControllerEvents(event: SQSEvent): Promise<SQSBatchResponse> {
  const p = platform();
  const members = new MemberStore(p.db, p.config.tableName);
  /** Replies are sealed for the room's sidecar: a reply carries player tokens. */
  const replyFor = (roomId: string) => async (replyTo: string, message: ControllerReply) => {
    const body = sealControllerReply(await p.sidecarKeys(roomId), message);
    try {
      await p.sqs.send(new SendMessageCommand({ QueueUrl: replyTo, MessageBody: body }));
    } catch (error) {
      if (!(error instanceof QueueDoesNotExist)) throw error;
      // A live room's sidecar recreates a queue that vanished (something else deleted it):
      // retry, and the redelivered request gets the recorded answer. Once the room has ended
      // its sidecar deleted the queue itself; nobody is left to answer.
      const room = await p.rooms.find(roomId);
      if (room && isLive(room.state)) throw error;
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
          await handleControllerRequest(opened.request, {
            rooms: p.rooms,
            members,
            signToken: p.signToken,
            verifyServerToken: p.verifyPlatformToken,
            reply: replyFor(opened.request.roomId),
            sidecarCredentials: p.sidecarCredentials,
            now: p.now,
          });
        } catch (error) {
          log.error('controller message failed; it will be retried', {
            messageId: record.messageId,
            error: error as Error,
          });
          failures.push(...records.slice(index).map((r) => r.messageId));
          return;
        }
      }
    }),
  );
  return { batchItemFailures: failures.map((itemIdentifier) => ({ itemIdentifier })) };
}

export const handler = middy<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: 0 }).handler(processControllerEvents);
