import middy from '@middy/core';
import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import * as z from 'zod';
import { Fanout, type RoomRecord } from '../../core/live/fanout';
import { childLogger } from '../../core/infra/logger';
import { countMetric, historyMetrics } from '../../core/infra/metrics';
import { historyEventOf } from '../../core/rooms/history';
import { platform, type Platform } from '../dependencies';

const log = childLogger('room-taps');

/**
 * Deployed, held taps (a subscription's `minTapIntervalMs` not yet over) are sent before the
 * invocation ends: Lambda freezes the process between invocations, and one that is never
 * invoked again would hold them forever. The wait is capped because the lane's next batch
 * waits behind it: a held tap past the cap is sent early rather than late.
 */
const maxHoldMs = 10_000;
/** Kept back from the invocation's deadline to send what is still held. */
const sendReserveMs = 2_000;

const streamRecordSchema = z.object({
  eventName: z.enum(['INSERT', 'MODIFY', 'REMOVE']),
  dynamodb: z.object({
    Keys: z.object({ pk: z.object({ S: z.string() }), sk: z.object({ S: z.string() }) }),
    NewImage: z.record(z.string(), z.unknown()).optional(),
  }),
});

const roomPkPrefix = 'ROOM#';

/**
 * The room record of one stream record, or undefined for any other item (the deployed event
 * source filters on `sk` = ROOM; the local stream reader delivers every item of the table).
 */
export function roomRecordOf(record: unknown): RoomRecord | undefined {
  const parsed = streamRecordSchema.safeParse(record);
  if (!parsed.success) return undefined;
  const { eventName, dynamodb } = parsed.data;
  const { pk, sk } = dynamodb.Keys;
  if (sk.S !== 'ROOM' || !pk.S.startsWith(roomPkPrefix)) return undefined;
  const roomId = pk.S.slice(roomPkPrefix.length);
  if (eventName === 'REMOVE') return { kind: 'removed', roomId };
  if (!dynamodb.NewImage) return undefined;
  return { kind: 'image', roomId, item: unmarshall(dynamodb.NewImage as Record<string, AttributeValue>) };
}

let current: { platform: Platform; fanout: Fanout } | undefined;

/** This process's fanout, over the platform it serves now (the local cloud may reconfigure it). */
function fanout(): Fanout {
  const p = platform();
  if (current?.platform !== p) {
    current?.fanout.stop();
    current = {
      platform: p,
      fanout: new Fanout({ subscriptions: p.liveSubscriptions, sender: p.connectionSender, now: p.now }),
    };
  }
  return current.fanout;
}

/**
 * Taps for a batch of the table's stream, record by record in the stream's order, and the
 * spawn/kill history of its state and server changes (core/rooms/history.ts), written beside
 * the taps. A failure to read a room's subscribers fails the batch (the event source retries
 * it, halved); records already handled are skipped by the fanout's dedupe, and a history event
 * written again rewrites its own item. A failed history write fails nothing (HistoryWriteFailures). Without a Lambda context
 * (the local cloud's stream reader) the process lives on and sends held taps when their
 * intervals end.
 */
export async function tapRooms(
  event: DynamoDBStreamEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<void> {
  const taps = fanout();
  const rooms = event.Records.map((record) => {
    const room = roomRecordOf(record);
    if (!room && record.dynamodb?.Keys?.sk?.S === 'ROOM') log.warn('a room record without its image', { record });
    return room;
  });
  const history = rooms.flatMap((room) => {
    const change = room?.kind === 'image' ? historyEventOf(room.item) : undefined;
    return change ? [change] : [];
  });
  // Best effort: the history is for operators, the taps are the live sessions' feature, so a
  // history write that fails is logged and counted, never a reason to hold back or retry taps.
  const recorded =
    history.length === 0
      ? Promise.resolve()
      : platform()
          .history.record(history)
          .catch((error: unknown) => {
            log.error('spawn/kill history not written; the taps go on', {
              error: error as Error,
              rooms: history.map((event) => event.roomId),
            });
            countMetric(historyMetrics.writeFailed);
          });
  for (const room of rooms) if (room) await taps.handle(room);
  await recorded;
  if (context) await taps.settle(Math.min(maxHoldMs, context.getRemainingTimeInMillis() - sendReserveMs));
}

/** Stops the held taps of this process (the local cloud is stopping). */
export function stopRoomTaps(): void {
  current?.fanout.stop();
  current = undefined;
}

export const handler = middy<DynamoDBStreamEvent, void>({ timeoutEarlyInMillis: 0 }).handler(
  (event: DynamoDBStreamEvent, context: Context) => tapRooms(event, context),
);
