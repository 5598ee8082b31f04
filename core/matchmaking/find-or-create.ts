import { jitteredBackoffMs, type BackoffPolicy } from '../infra/clock';
import { RoomNotFoundError } from '../rooms/errors';
import { RoomFullError, RoomNotJoinableError } from '../rooms/join-errors';
import type { Room } from '../rooms/model';
import type { Reservation } from '../rooms/member';
import type { PartyReservation } from '../rooms/join';
import { matchesCriteria } from './bucket';
import type { FillingRoomStore, OpenRoom } from './store';
import { ProtocolMismatchError } from '../versions/errors';

export interface MatchResult {
  readonly room: Room;
  readonly reservation?: Reservation;
  /** Every member's, the caller's first: only for a party's matchmaking. */
  readonly reservations?: readonly PartyReservation[];
  readonly spawning: boolean;
  readonly created: boolean;
}

export interface FindOrCreateDependencies {
  readonly pointers: FillingRoomStore;
  readonly findRoom: (roomId: string) => Promise<Room | undefined>;
  /** Joins a named room; throws RoomFullError / RoomNotJoinableError / RoomNotFoundError. */
  readonly join: (roomId: string) => Promise<MatchResult>;
  /** Creates a room with this id for the bucket, the caller holding its first slot. */
  readonly create: (roomId: string) => Promise<MatchResult>;
  readonly newRoomId: () => string;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
  /**
   * The configuration's deployment now (core/gameservers/deployment.ts). A bucket room whose
   * server is of another build than the client's, started from this same deployment, shows the
   * configuration's servers ARE another build: the refusal is the answer, and no room is made
   * for it (each would be another build again). Started from an earlier deployment, the room is
   * passed over.
   */
  readonly deployment?: string;
  /** The refusal is the answer: tell the room's server (core/versions/notice.ts). */
  readonly refused?: (room: Room, error: ProtocolMismatchError) => Promise<void>;
  /** The slots the caller needs, its party's and its own. @default 1 */
  readonly slots?: number;
}

/**
 * The pause of a racer that must wait for another (`jitteredBackoffMs`): full jitter under a
 * ceiling that doubles from 10 ms to 250 ms. Racers that lost the pointer, or wait for the
 * winner's room to appear, spread out instead of polling the same two items in step.
 */
export const racerBackoff: BackoffPolicy = { baseMs: 10, capMs: 250 };

/** A pointer whose room never appeared (its creator died between the two writes) is abandoned after this. */
const abandonedPointerMs = 10_000;
const maxRounds = 60;

/**
 * Find-or-create that packs rooms densely under any concurrency:
 *
 *   pointer → room R ── join R ─ ok ────────────────► done
 *                          └─ full / closed / not matching
 *                               ├─ an older room of the bucket has a free slot → join it
 *                               └─ move pointer R → new id (one racer wins) → winner creates it
 *                                                                            → the others join it
 *
 * Only the racer that moves the pointer spawns a server, so a stampede of 80 players for
 * rooms of 8 makes about 10 rooms, never one per player, and never over-fills one (every
 * slot is still a conditional claim).
 */
export async function findOrCreate(
  bucket: string,
  criteria: Readonly<Record<string, unknown>>,
  deps: FindOrCreateDependencies,
): Promise<MatchResult> {
  if ((deps.slots ?? 1) > 1) return findOrCreateForParty(bucket, criteria, deps.slots!, deps);
  let waits = 0;
  for (let round = 0; round < maxRounds; round++) {
    const pointer = await deps.pointers.get(bucket);
    if (!pointer) {
      const created = await createIfPointerMoved(bucket, undefined, deps);
      if (created) return created;
      await deps.sleep(jitteredBackoffMs(waits++, racerBackoff));
      continue;
    }
    const room = await deps.findRoom(pointer.roomId);
    if (!room) {
      // Its creator is between moving the pointer and writing the room: wait briefly.
      if (deps.now().getTime() - Date.parse(pointer.since) < abandonedPointerMs) {
        await deps.sleep(jitteredBackoffMs(waits++, racerBackoff));
        continue;
      }
    } else if (matchesCriteria(room.settings, criteria)) {
      const joined = await tryJoin(room, deps);
      if (joined) return joined;
    }
    for (const roomId of await deps.pointers.roomsWithFreeSlots(bucket)) {
      if (roomId === pointer.roomId) continue;
      const candidate = await deps.findRoom(roomId);
      if (!candidate || !matchesCriteria(candidate.settings, criteria)) continue;
      const joined = await tryJoin(candidate, deps);
      if (joined) return joined;
    }
    const created = await createIfPointerMoved(bucket, pointer.roomId, deps);
    if (created) return created;
    // Another racer moved it and is writing the room: give it the time to.
    await deps.sleep(jitteredBackoffMs(waits++, racerBackoff));
  }
  throw new RoomFullError(bucket);
}

/**
 * Find-or-create for a party of `slots` players: it goes only where it fits whole, into the
 * FULLEST room that does (best fit keeps rooms dense when parties of several sizes share a
 * bucket), else it moves the pointer and creates a room with the whole party in it:
 *
 *   pointer room (read) + the bucket's rooms with ≥ slots free (the index's counts)
 *     → fullest first: join ─ ok ──────────────────► done
 *                           └─ does not fit / closed → the next one
 *     → none: move pointer → new id (one racer wins) → the winner creates it with its party
 */
async function findOrCreateForParty(
  bucket: string,
  criteria: Readonly<Record<string, unknown>>,
  slots: number,
  deps: FindOrCreateDependencies,
): Promise<MatchResult> {
  let waits = 0;
  for (let round = 0; round < maxRounds; round++) {
    const pointer = await deps.pointers.get(bucket);
    if (!pointer) {
      const created = await createIfPointerMoved(bucket, undefined, deps);
      if (created) return created;
      await deps.sleep(jitteredBackoffMs(waits++, racerBackoff));
      continue;
    }
    const [room, open] = await Promise.all([
      deps.findRoom(pointer.roomId),
      deps.pointers.roomsWithRoomFor(bucket, slots),
    ]);
    if (!room && deps.now().getTime() - Date.parse(pointer.since) < abandonedPointerMs) {
      await deps.sleep(jitteredBackoffMs(waits++, racerBackoff));
      continue;
    }
    for (const candidate of fullestFirst(room && matchesCriteria(room.settings, criteria) ? room : undefined, open)) {
      if (candidate.maxPlayers - candidate.players < slots) continue;
      const joined = await tryJoin(candidate.roomId === room?.roomId ? room : candidate.roomId, deps);
      if (joined) return joined;
    }
    const created = await createIfPointerMoved(bucket, pointer.roomId, deps);
    if (created) return created;
    await deps.sleep(jitteredBackoffMs(waits++, racerBackoff));
  }
  throw new RoomFullError(bucket);
}

/**
 * Moves the bucket's pointer from `expected` (undefined: it points nowhere) to a new room id
 * and, if this racer is the one that moved it, creates that room; undefined if another racer won.
 */
async function createIfPointerMoved(
  bucket: string,
  expected: string | undefined,
  deps: FindOrCreateDependencies,
): Promise<MatchResult | undefined> {
  const roomId = deps.newRoomId();
  return (await deps.pointers.move(bucket, roomId, expected, deps.now())) ? deps.create(roomId) : undefined;
}

/** The pointer room (as read) and the index's open rooms, once each, the fullest first (then the oldest). */
function fullestFirst(pointerRoom: Room | undefined, open: readonly OpenRoom[]): OpenRoom[] {
  const rooms = new Map<string, OpenRoom>(open.map((room) => [room.roomId, room]));
  if (pointerRoom) rooms.set(pointerRoom.roomId, pointerRoom);
  return [...rooms.values()].sort((a, b) => a.maxPlayers - a.players - (b.maxPlayers - b.players));
}

/**
 * Joins the room, or answers undefined when it filled, closed, vanished, stopped matching the
 * criteria, or turned out to run a build of an earlier deployment meanwhile.
 */
async function tryJoin(room: Room | string, deps: FindOrCreateDependencies): Promise<MatchResult | undefined> {
  try {
    return await deps.join(typeof room === 'string' ? room : room.roomId);
  } catch (error) {
    if (error instanceof RoomFullError || error instanceof RoomNotJoinableError || error instanceof RoomNotFoundError) {
      return undefined;
    }
    if (error instanceof ProtocolMismatchError) {
      // The room as the refusal found it: the pointer's read may predate its `inited` or a replacement.
      const found = error.room ?? (typeof room === 'string' ? undefined : room);
      if (found?.deployment === undefined || found.deployment !== deps.deployment) return undefined;
      await deps.refused?.(found, error);
    }
    throw error;
  }
}
