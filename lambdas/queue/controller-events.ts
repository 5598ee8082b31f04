import middy from '@middy/core';
import { QueueDoesNotExist, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { handleControllerRequest } from '../../core/gameservers/controller-events';
import { childLogger } from '../../core/infra/logger';
import { giveUpOnMessage, isLastDelivery, type GiveUpDependencies } from '../../core/gameservers/poison-messages';
import { queueDefinitions } from '../../core/infra/queues';
import {
  controllerRequestSchema,
  type ControllerReply,
  type ControllerRequest,
} from '../../core/protocol/controller-messages';
import { MemberStore } from '../../core/reservations/store';
import { platform } from '../dependencies';

const log = childLogger('controller-events');
/** The redrive policy's count (the CDK stack and the local cloud create the queue from the same definition). */
const maxReceiveCount = queueDefinitions.controllerRequests.deadLetter.maxReceiveCount;

function parse(record: SQSRecord) {
  try {
    return controllerRequestSchema.safeParse(JSON.parse(record.body));
  } catch {
    return undefined;
  }
}

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
  const members = new MemberStore(p.db, p.config.tableName);
  const reply = async (replyTo: string, message: ControllerReply) => {
    try {
      await p.sqs.send(new SendMessageCommand({ QueueUrl: replyTo, MessageBody: JSON.stringify(message) }));
    } catch (error) {
      // The sidecar deleted its queue when it ended: nobody is left to answer. The state
      // change is applied; retrying the message could never deliver the reply.
      if (error instanceof QueueDoesNotExist) {
        log.info('reply dropped: the sidecar is gone', {
          correlationId: message.type === 'reply' ? message.correlationId : undefined,
        });
        return;
      }
      throw error;
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
        const parsed = parse(record);
        if (!parsed?.success) {
          // Poison: retrying cannot fix it. Dropped with a trace, never retried.
          log.warn('dropping malformed controller message', { messageId: record.messageId });
          continue;
        }
        try {
          await handleControllerRequest(parsed.data, {
            rooms: p.rooms,
            members,
            signToken: p.signToken,
            verifyServerToken: p.verifyPlatformToken,
            reply,
            now: p.now,
          });
        } catch (error) {
          if (await givenUp(record, parsed.data, error, { rooms: p.rooms, reply, now: p.now })) {
            // Bound for the dead-letter queue; the room is failed, so the rest of its group goes on.
            failures.push(record.messageId);
            continue;
          }
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
