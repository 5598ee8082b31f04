import {
  applyChange,
  holds,
  updatedPart,
  type Change,
  type Condition,
  type Item,
} from '../../../core/rooms/room-expression';
import type { ItemWriteResult, RoomItems, RoomStore } from '../../../core/rooms/room-store';
import { Rooms, type RoomsOptions } from '../../../core/rooms/rooms';

/**
 * Room items in a Map, for unit tests of the use cases. Each write judges the same condition
 * data and applies the same change data the DynamoDB store compiles, and the same contract
 * tests run against both (test/helpers/contracts/room-store.ts).
 */
export class MemoryRoomItems implements RoomItems {
  private readonly items = new Map<string, Item>();

  async get(roomId: string): Promise<Item | undefined> {
    const item = this.items.get(roomId);
    return item ? structuredClone(item) : undefined;
  }

  async putNew(item: Item): Promise<Item | undefined> {
    const roomId = String(item.roomId);
    const existing = this.items.get(roomId);
    if (existing) return structuredClone(existing);
    this.items.set(roomId, structuredClone(item));
    return undefined;
  }

  async update(
    roomId: string,
    condition: Condition,
    change: Change,
    answer: 'all' | 'updated' = 'all',
  ): Promise<ItemWriteResult> {
    const item = this.items.get(roomId);
    // DynamoDB judges a missing item as an empty one: only conditions on absence can hold.
    if (!holds(condition, item ?? {})) return { applied: false, ...(item ? { item: structuredClone(item) } : {}) };
    const next = applyChange(item ?? {}, change);
    this.items.set(roomId, next);
    return { applied: true, item: answer === 'updated' ? updatedPart(next, change) : structuredClone(next) };
  }

  async delete(roomId: string, condition: Condition): Promise<boolean> {
    const item = this.items.get(roomId);
    if (!holds(condition, item ?? {})) return false;
    this.items.delete(roomId);
    return true;
  }
}

/** The room store in memory: one Map per call. */
export function memoryRoomStore(options: RoomsOptions = {}): RoomStore {
  return new Rooms(new MemoryRoomItems(), options);
}
