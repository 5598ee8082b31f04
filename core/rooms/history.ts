import * as z from 'zod';
import { RequestInvalidError } from '../errors';
import { keys, liveRoomShard, liveRoomShards } from '../infra/keys';
import { changeNumbersOf } from './change-kinds';
import { roomOf } from './room-item';
import { roomIdSchema } from './schema';

/**
 * The spawn/kill history (`GET /v1/admin/history`): one event per room write that changed
 * the room's state or its server, derived from the write's new image by the table stream's
 * consumer (lambdas/stream/room-taps.ts), never by the request that wrote it.
 */
const historyEventKinds = [
  /** A new room (or warm-pool server) asked for its server. */
  'spawning',
  /** The spawner placed its server: `host` says where. */
  'placed',
  /** The game called `inited`. */
  'ready',
  /** A create took a ready warm-pool server: it became the creator's room. */
  'assigned',
  /** The room outlived its server: a replacement server is starting (its members kept). */
  'server-replaced',
  'failed',
  'closed',
] as const;
type HistoryEventKind = (typeof historyEventKinds)[number];

export const historyEventSchema = z
  .strictObject({
    at: z.iso.datetime().describe("The write's instant, by the platform's clock."),
    roomId: z.string(),
    gameId: z.string(),
    version: z.string(),
    region: z.string(),
    changeNumber: z.number().int().describe("The room's change number the write made."),
    event: z.enum(historyEventKinds),
    reason: z
      .string()
      .optional()
      .describe(
        'Failed or closed: why (failureReason: spawn-timeout, hung, crashed, heartbeat-lost, closed-by-admin, …).',
      ),
    host: z.string().optional().describe("Where the room's server runs, once placed."),
    standby: z.literal(true).optional().describe('A warm-pool server, nobody’s room yet.'),
  })
  .meta({ id: 'HistoryEvent' });
export type HistoryEvent = z.output<typeof historyEventSchema>;

export const historyQuerySchema = z
  .strictObject({
    roomId: roomIdSchema.optional(),
    limit: z.coerce.number().int().min(1).max(200).default(50),
    nextToken: z.string().max(4096).optional(),
  })
  .meta({ id: 'HistoryQuery' });
export type HistoryQuery = z.output<typeof historyQuerySchema>;

export const historyPageSchema = z
  .strictObject({
    events: z.array(historyEventSchema),
    nextToken: z.string().optional().describe('Present while older events may remain: pass it back for the next page.'),
  })
  .meta({ id: 'HistoryPage' });
export type HistoryPage = z.output<typeof historyPageSchema>;

/**
 * How long an event is kept (its item's TTL: garbage collection, so it may read back a little
 * longer): as long as a listing reads, today's and yesterday's partitions, and no longer.
 */
export const historyRetentionS = 2 * 86_400;

/**
 * The event one write of a room made, if it changed the room's state or server: judged on
 * the write's new image (its `cn` records the change number at which each kind last changed),
 * so a redelivered stream record gives the same event. Undefined for every other write.
 */
export function historyEventOf(item: Record<string, unknown>): HistoryEvent | undefined {
  const changed = changeNumbersOf(item.cn);
  const changeNumber = item.changeNumber;
  if (!changed || typeof changeNumber !== 'number') return undefined;
  const room = roomOf(item);
  if (typeof room.updatedAt !== 'string') return undefined;
  const kind = eventKindOf(room, changed.state === changeNumber, changed.servers === changeNumber);
  if (!kind) return undefined;
  return {
    at: room.updatedAt,
    roomId: room.roomId,
    gameId: room.gameId,
    version: room.version,
    region: room.region,
    changeNumber,
    event: kind,
    ...(room.failureReason && (kind === 'failed' || kind === 'closed') ? { reason: room.failureReason } : {}),
    ...(room.placement?.host ? { host: room.placement.host } : {}),
    ...(room.standby ? { standby: true as const } : {}),
  };
}

function eventKindOf(
  room: ReturnType<typeof roomOf>,
  stateChanged: boolean,
  serversChanged: boolean,
): HistoryEventKind | undefined {
  if (stateChanged) {
    // A room's first write makes it; a later write back to `spawning` is a replacement server.
    if (room.state === 'spawning') return room.updatedAt === room.createdAt ? 'spawning' : 'server-replaced';
    return room.state;
  }
  if (!serversChanged) return undefined;
  // While spawning, the only server write is the spawner's placement.
  if (room.state === 'spawning' && room.placement) return 'placed';
  // A hand-over makes the room ready at its own instant; settings and saved state do not.
  if (room.state === 'ready' && !room.standby && room.readyAt === room.updatedAt) return 'assigned';
  return undefined;
}

/** The UTC day (`yyyy-mm-dd`) of an instant. */
function dayOf(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** The partitions a listing reads at `now`: today's and yesterday's, every shard or the room's. */
function historyPartitions(now: Date, roomId?: string): string[] {
  const days = [dayOf(now), dayOf(new Date(now.getTime() - 86_400_000))];
  const shards = roomId === undefined ? [...Array(liveRoomShards).keys()] : [liveRoomShard(roomId)];
  return days.flatMap((day) => shards.map((shard) => keys.historyPartition(day, shard)));
}

/** Where one partition's next read starts: below sort key `after`, or at its newest. */
export interface HistoryCursor {
  readonly partition: string;
  readonly after?: string;
}

/** One read of one partition, newest first: its events with their sort keys, and where it stopped. */
export interface PartitionRead {
  readonly cursor: HistoryCursor;
  readonly events: readonly { readonly sk: string; readonly event: HistoryEvent }[];
  /** The sort key the read stopped at with more to read (DynamoDB's LastEvaluatedKey); absent: read to its end. */
  readonly last?: string;
}

/**
 * One page of the newest events of several partitions, each read newest first. An event is
 * on the page only when no partition can still hold a newer one unread: every partition that
 * stopped early stopped at or below it. Each partition's cursor moves past what the page took,
 * so following the cursors visits every event exactly once, newest first.
 */
export function mergeHistoryReads(
  reads: readonly PartitionRead[],
  limit: number,
): { events: HistoryEvent[]; cursors: HistoryCursor[] } {
  const stops = reads.flatMap((read) => (read.last === undefined ? [] : [read.last]));
  const horizon = stops.length === 0 ? undefined : stops.reduce((a, b) => (a > b ? a : b));
  const taken = reads
    .flatMap((read, index) => read.events.map((entry) => ({ ...entry, index })))
    .filter((entry) => horizon === undefined || entry.sk >= horizon)
    .sort((a, b) => (a.sk < b.sk ? 1 : a.sk > b.sk ? -1 : 0))
    .slice(0, limit);
  const cursors = reads.flatMap((read, index): HistoryCursor[] => {
    const mine = taken.filter((entry) => entry.index === index);
    const lastTaken = mine.at(-1)?.sk;
    if (mine.length < read.events.length) {
      return [lastTaken === undefined ? read.cursor : { partition: read.cursor.partition, after: lastTaken }];
    }
    return read.last === undefined ? [] : [{ partition: read.cursor.partition, after: read.last }];
  });
  return { events: taken.map((entry) => entry.event), cursors };
}

const partitionPattern = /^HISTORY#\d{4}-\d{2}-\d{2}#[0-7]$/;
const sortKeyPattern = /^\d{4}-\d{2}-\d{2}T[\d:.]+Z#[A-Za-z0-9_-]{1,64}#\d{1,16}$/;

const tokenSchema = z
  .array(
    z.strictObject({
      p: z.string().regex(partitionPattern),
      a: z.string().max(128).regex(sortKeyPattern).optional(),
    }),
  )
  .min(1)
  .max(2 * liveRoomShards);

function encodeHistoryToken(cursors: readonly HistoryCursor[]): string | undefined {
  if (cursors.length === 0) return undefined;
  const entries = cursors.map((c) => ({ p: c.partition, ...(c.after === undefined ? {} : { a: c.after }) }));
  return Buffer.from(JSON.stringify(entries)).toString('base64url');
}

/**
 * The cursors a `nextToken` stands for: history partitions and sort keys of the shapes this
 * API writes, nothing else (a 400 naming `query.nextToken`, never a ValidationException).
 */
function decodeHistoryToken(token: string): HistoryCursor[] {
  let parsed: z.ZodSafeParseResult<z.output<typeof tokenSchema>> | undefined;
  try {
    parsed = tokenSchema.safeParse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
  } catch {
    parsed = undefined;
  }
  const partitions = parsed?.success ? parsed.data.map((e) => e.p) : [];
  if (!parsed?.success || new Set(partitions).size !== partitions.length) {
    throw new RequestInvalidError('nextToken is not a token this API issued for the history.', [
      { field: 'query.nextToken', message: 'is not a page token of the history' },
    ]);
  }
  return parsed.data.map((e) => ({ partition: e.p, ...(e.a === undefined ? {} : { after: e.a }) }));
}

/**
 * Reads one page of the history: from the token's cursors, or from the newest of today's and
 * yesterday's partitions (`historyPartitions`). `read` queries one partition newest first.
 */
export async function readHistoryPage(
  query: HistoryQuery,
  now: Date,
  read: (cursor: HistoryCursor, limit: number, roomId?: string) => Promise<PartitionRead>,
): Promise<HistoryPage> {
  const cursors = query.nextToken
    ? decodeHistoryToken(query.nextToken)
    : historyPartitions(now, query.roomId).map((partition) => ({ partition }));
  const reads = await Promise.all(cursors.map((cursor) => read(cursor, query.limit, query.roomId)));
  const page = mergeHistoryReads(reads, query.limit);
  const nextToken = encodeHistoryToken(page.cursors);
  return nextToken === undefined ? { events: page.events } : { events: page.events, nextToken };
}
