import { keys } from '../../../core/infra/keys';
import {
  maxTransactItems,
  type LargeMemberItems,
  type MemberOp,
  type MemberTransaction,
  type TransactionOutcome,
} from '../../../core/rooms/large-members';
import { applyChange, holds, type Item } from '../../../core/rooms/room-expression';
import type { MemoryRoomItems } from './rooms';

/**
 * Large sessions' member items in a Map, beside a `MemoryRoomItems`: a transaction judges every
 * condition, then applies every part, in one synchronous step (all or nothing, like
 * TransactWriteItems, and like it refusing more than 100 items). It never answers a conflict:
 * like DynamoDB Local, it serialises. A member's failed condition is answered before the
 * room's, as core/rooms/large-member-store.ts reads DynamoDB's cancellation reasons.
 */
export class MemoryLargeMemberItems implements LargeMemberItems {
  private readonly members = new Map<string, Item>();

  constructor(private readonly rooms: MemoryRoomItems) {}

  private static key(roomId: string, account: string): string {
    const { pk, sk } = keys.largeMember(roomId, account);
    return `${pk}\u0000${sk}`;
  }

  async transact(roomId: string, tx: MemberTransaction): Promise<TransactionOutcome> {
    const size = tx.members.length + (tx.room.kind === 'none' ? 0 : 1);
    if (size > maxTransactItems) throw new Error(`ValidationException: ${size} items, at most ${maxTransactItems}`);
    const room = this.rooms.peek(roomId);
    const roomHolds =
      tx.room.kind === 'none' || (tx.room.kind === 'put' ? room === undefined : holds(tx.room.condition, room ?? {}));
    for (const op of tx.members) {
      const item = this.members.get(MemoryLargeMemberItems.key(roomId, op.account));
      if (!holds(op.condition, item ?? {}))
        return {
          applied: false,
          failed: 'member',
          account: op.account,
          ...(item ? { item: structuredClone(item) } : {}),
        };
    }
    if (!roomHolds) return { applied: false, failed: 'room', ...(room ? { item: structuredClone(room) } : {}) };
    if (tx.room.kind === 'put') this.rooms.replace(roomId, structuredClone(tx.room.item));
    if (tx.room.kind === 'update') this.rooms.replace(roomId, applyChange(room ?? {}, tx.room.change));
    for (const op of tx.members) this.apply(roomId, op);
    return { applied: true };
  }

  private apply(roomId: string, op: MemberOp): void {
    const key = MemoryLargeMemberItems.key(roomId, op.account);
    if (op.kind === 'delete') this.members.delete(key);
    else if (op.kind === 'put') this.members.set(key, structuredClone(op.item));
    else
      this.members.set(
        key,
        applyChange(this.members.get(key) ?? { ...keys.largeMember(roomId, op.account) }, op.change),
      );
  }

  async get(roomId: string, account: string): Promise<Item | undefined> {
    const item = this.members.get(MemoryLargeMemberItems.key(roomId, account));
    return item ? structuredClone(item) : undefined;
  }

  private ofRoom(roomId: string): Item[] {
    const pk = keys.room(roomId).pk;
    return [...this.members.values()]
      .filter((item) => item.pk === pk)
      .sort((a, b) => (String(a.sk) < String(b.sk) ? -1 : 1))
      .map((item) => structuredClone(item));
  }

  async page(roomId: string, limit: number, after?: string): Promise<{ items: Item[]; last?: string }> {
    const all = this.ofRoom(roomId).filter((item) => after === undefined || String(item.account) > after);
    const items = all.slice(0, limit);
    return { items, ...(all.length > limit ? { last: String(items.at(-1)!.account) } : {}) };
  }

  async expiredBefore(roomId: string, now: number, limit: number): Promise<Item[]> {
    return this.ofRoom(roomId)
      .filter((item) => typeof item.x === 'number' && item.x < now)
      .slice(0, limit);
  }

  async ofKey(roomId: string, keyHash: string): Promise<Item | undefined> {
    return this.ofRoom(roomId).find((item) => (item.m as { k?: unknown } | undefined)?.k === keyHash);
  }
}
