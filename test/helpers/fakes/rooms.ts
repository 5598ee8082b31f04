import {
  applyChange,
  holds,
  updatedPart,
  type Change,
  type Condition,
  type Item,
} from '../../../core/rooms/room-expression';
import type { ItemKey } from '../../../core/infra/keys';
import type { ItemWrite, ItemWriteResult, RoomItems, RoomStore, TransactOutcome } from '../../../core/rooms/room-store';
import { Rooms, type RoomsOptions } from '../../../core/rooms/rooms';
import { MemoryLargeMemberItems } from './large-members';

/**
 * Room items in a Map, for unit tests of the use cases. Each write judges the same condition
 * data and applies the same change data the DynamoDB store compiles, and the same contract
 * tests run against both (test/helpers/contracts/room-store.ts).
 */
export class MemoryRoomItems implements RoomItems {
  private readonly items = new Map<string, Item>();

  /**
   * `others`: the table's other items a transaction may write beside a room's (an account's
   * invites: test/helpers/fakes/invites.ts reads the same Map), by `otherItemKey`.
   */
  constructor(readonly others: Map<string, Item> = new Map()) {}

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

  /** The stored item itself, synchronously: a transaction of the large-member fake judges and writes it in one step. */
  peek(roomId: string): Item | undefined {
    return this.items.get(roomId);
  }

  /** Stores `item` as it is, or removes the room's item (undefined), synchronously. */
  replace(roomId: string, item: Item | undefined): void {
    if (item === undefined) this.items.delete(roomId);
    else this.items.set(roomId, item);
  }

  async transact(
    roomId: string,
    condition: Condition,
    change: Change,
    alongside: readonly ItemWrite[],
  ): Promise<TransactOutcome> {
    // Every condition judged first, then every change applied: all or none, as DynamoDB does.
    if (!holds(condition, this.items.get(roomId) ?? {})) return { state: 'Refused', at: 'room' };
    const refused = alongside.findIndex((w) => !holds(w.condition, this.others.get(otherItemKey(w.key)) ?? {}));
    if (refused >= 0) return { state: 'Refused', at: refused };
    this.items.set(roomId, applyChange(this.items.get(roomId) ?? {}, change));
    for (const w of alongside) {
      const key = otherItemKey(w.key);
      this.others.set(key, applyChange(this.others.get(key) ?? { ...w.key }, w.change));
    }
    return { state: 'Written' };
  }

  async delete(roomId: string, condition: Condition): Promise<boolean> {
    const item = this.items.get(roomId);
    if (!holds(condition, item ?? {})) return false;
    this.items.delete(roomId);
    return true;
  }
}

/** Where `MemoryRoomItems.others` keeps an item of the table that is not a room's. */
export const otherItemKey = (key: ItemKey): string => `${key.pk}|${key.sk}`;

/**
 * The room store in memory: one Map per call (and one for large sessions' member items).
 * `others`: the Map of other items its transactions write (shared with a fake that owns them).
 */
export function memoryRoomStore(options: RoomsOptions = {}, others?: Map<string, Item>): RoomStore {
  const items = new MemoryRoomItems(others);
  return new Rooms(items, { largeMembers: new MemoryLargeMemberItems(items), ...options });
}
