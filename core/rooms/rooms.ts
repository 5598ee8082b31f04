import { keys } from '../infra/keys';
import { knownHost } from '../gameservers/server-address';
import { documentOf } from '../sessions/document';
import type { SessionRead } from '../sessions/store';
import { RoomAlreadyExistsError, RoomNotFoundError } from './errors';
import type { NewMember } from './member';
import type { Placement, Room, RoomFailureReason, RoomSettings } from './model';
import { roomConditions as is } from './room-conditions';
import { allOf, mergeChanges, type Change, type Condition, type Item } from './room-expression';
import { checkNewRoomBudget, endedRoomTtlS, firstMembers, roomItem, roomOf } from './room-item';
import type {
  ItemWriteResult,
  RoomItems,
  RoomStore,
  RoomWrite,
  SessionWriteResult,
  TransitionResult,
} from './room-store';

export interface RoomsOptions {
  /** How long an ended room stays readable before TTL collects it (`ENDED_ROOM_RETENTION_S`). */
  readonly endedRetentionS?: number;
}

const readOf = (item: Item): SessionRead => ({ room: roomOf(item), doc: documentOf(item) });

const set = (fields: Record<string, unknown>): Change => ({
  set: Object.entries(fields).map(([name, value]) => [[name], value] as const),
});

/**
 * The room aggregate's one writer, on any `RoomItems` (the table, or a Map). Every write
 * passes through `write`, which adds what every write to a room does, once.
 */
export class Rooms implements RoomStore {
  private readonly endedRetentionS: number;

  constructor(
    private readonly items: RoomItems,
    options: RoomsOptions = {},
  ) {
    this.endedRetentionS = options.endedRetentionS ?? endedRoomTtlS;
  }

  /**
   * A creator's reservation without a fixed expiry is pending: its clock starts at `inited`.
   * A put that timed out may have been applied, and the retry then finds the room it wrote
   * itself: that is this creation succeeding, not a clash.
   */
  async createWithMember(room: Room, member?: NewMember): Promise<void> {
    const members = firstMembers(room, member);
    const item = roomItem(room, members);
    checkNewRoomBudget(room.roomId, item, members);
    const existing = await this.items.putNew(item);
    if (existing && !isSameCreation(existing, room)) throw new RoomAlreadyExistsError(room.roomId);
  }

  async get(roomId: string): Promise<Room> {
    const room = await this.find(roomId);
    if (!room) throw new RoomNotFoundError(roomId);
    return room;
  }

  async find(roomId: string): Promise<Room | undefined> {
    const item = await this.items.get(roomId);
    return item ? roomOf(item) : undefined;
  }

  recordPlacement(roomId: string, placement: Placement, now: Date): Promise<TransitionResult> {
    return this.transition(roomId, { change: set({ placement }), now });
  }

  /** `inited` settings replace the room's; the request id tells a redelivered `inited` from a second one. */
  async markReady(
    roomId: string,
    change: { settings?: RoomSettings; initedBy: string; address: string; now: Date },
  ): Promise<TransitionResult> {
    // Never ready without an address players can reach: the write cannot apply.
    if (!knownHost(change.address)) return { applied: false, room: await this.find(roomId) };
    const now = change.now.toISOString();
    return this.transition(roomId, {
      condition: allOf(is.roomIsSpawning, is.spawnDeadlineAhead(change.now)),
      // Ready and reachable in one write: no reader sees a ready room without an address.
      change: set({
        state: 'ready',
        address: change.address,
        initedBy: change.initedBy,
        readyAt: now,
        lastHeartbeatAt: now,
        ...(change.settings ? { settings: change.settings } : {}),
      }),
      now: change.now,
    });
  }

  /** A failed room never becomes ready again. */
  markFailed(roomId: string, reason: RoomFailureReason, now: Date): Promise<TransitionResult> {
    return this.transition(roomId, {
      condition: is.roomIsLive,
      change: set({ state: 'failed', failureReason: reason }),
      now,
      ends: true,
    });
  }

  /**
   * The game ended cleanly after serving its players, or the platform ended it (cost bounds).
   * `unchangedSince`: only if no write (a join) touched the room since the read that judged it empty.
   */
  markClosed(roomId: string, now: Date, unchangedSince?: { changeNumber: number }): Promise<TransitionResult> {
    return this.transition(roomId, {
      condition: unchangedSince
        ? allOf(is.roomIsReady, is.unchangedSince(unchangedSince.changeNumber))
        : is.roomIsReady,
      change: set({ state: 'closed' }),
      now,
      ends: true,
    });
  }

  recordHeartbeat(roomId: string, now: Date): Promise<TransitionResult> {
    return this.transition(roomId, {
      condition: is.roomIsLive,
      change: set({ lastHeartbeatAt: now.toISOString() }),
      now,
      quiet: true,
    });
  }

  async writeSession(roomId: string, write: RoomWrite): Promise<SessionWriteResult> {
    const result = await this.write(roomId, write);
    if (result.applied) return { applied: true, read: readOf(result.item) };
    return { applied: false, ...(result.item ? { current: readOf(result.item) } : {}) };
  }

  endSession(roomId: string, changeNumber: number): Promise<boolean> {
    return this.items.delete(roomId, is.unchangedSince(changeNumber));
  }

  private async transition(roomId: string, write: RoomWrite): Promise<TransitionResult> {
    const result = await this.write(roomId, write);
    if (result.applied) return { applied: true, room: roomOf(result.item) };
    return { applied: false, ...(result.item ? { room: roomOf(result.item) } : {}) };
  }

  /** The one write path of a room item. */
  private write(roomId: string, write: RoomWrite): Promise<ItemWriteResult> {
    const { condition, change } = completeWrite(write, this.endedRetentionS);
    return this.items.update(roomId, condition, change);
  }
}

/**
 * What every write to a room adds to the use case's own: the room must exist; unless quiet,
 * one more change and `updatedAt`; a write that ends the room sets its `ttl` (collected a
 * retention later) and removes every index key, so no lookup ever offers it again.
 */
export function completeWrite(write: RoomWrite, endedRetentionS: number): { condition: Condition; change: Change } {
  const condition = write.condition ? allOf(is.roomExists, write.condition) : is.roomExists;
  const bookkeeping: Change = write.quiet
    ? {}
    : { set: [[['updatedAt'], write.now.toISOString()]], add: [[['changeNumber'], 1]] };
  const ending: Change = write.ends
    ? {
        set: [[['ttl'], Math.ceil(write.now.getTime() / 1000) + endedRetentionS]],
        remove: keys.roomIndexAttributes.map((name) => [name]),
      }
    : {};
  return { condition, change: mergeChanges(write.change, bookkeeping, ending) };
}

/** Whether the item in the way of a create is this very room (same owner, same creation instant). */
function isSameCreation(existing: Item, room: Room): boolean {
  return existing.owner === room.owner && existing.createdAt === room.createdAt && existing.roomId === room.roomId;
}
