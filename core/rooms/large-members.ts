import { DependencyUnavailableError } from '../errors';
import { jitteredBackoffMs, joinContentionBackoff, systemClock, type Clock } from '../infra/clock';
import { keys } from '../infra/keys';
import {
  expiryOf,
  isLiveMember,
  memberOf,
  preConfirmation,
  storedKeyHash,
  type RoomClock,
  type StoredMember,
} from './document';
import { buildMismatch, classifyClaimFailure, joinable } from './join-conditions';
import { memberView, ownFields } from './member-writes';
import type { Room } from './model';
import { roomConditions as is } from './room-conditions';
import { absent, allOf, equals, type Change, type Condition, type Item } from './room-expression';
import type {
  ClaimMember,
  ClaimResult,
  AbandonResult,
  ClaimSpec,
  ConfirmResult,
  LargeClaim,
  LargeUndo,
  LargeSessionStore,
  LeaveResult,
  ReissueChange,
  ReissueResult,
  RoomStore,
  RoomWrite,
  SessionRead,
} from './room-store';
import { isLargeSession } from './session-model';

/**
 * A `large` session's members (core/rooms/session-model.ts `isLargeSession`): the room's item
 * keeps `players` only, each member is its own item `ROOM#<roomId>` / `MEMBER#<account>`
 * (core/infra/keys.ts). A join is ONE TransactWriteItems: the room's count and conditions, and
 * one Put per joining member, so its cost is those items' sizes whatever the session holds.
 * Only core/rooms/rooms.ts calls this module: it stays the one writer of a room's items.
 *
 * | attribute | what                                                                   |
 * | --------- | ---------------------------------------------------------------------- |
 * | `account` | the member's account                                                   |
 * | `m`       | the member as a session document holds it (`StoredMember`)             |
 * | `x`       | no earlier than its expiry (epoch ms); absent: nothing times it out. A Query for `x < now` finds reclaimable members without reading the room's document |
 * | `g`       | the `left` request that removed it (a tombstone, not counted in `players`) |
 * | `ttl`     | when DynamoDB may collect it: the room's lifetime bound and the ended-room retention after its creation (`memberTtlS`) |
 */

/** The claim of `spec` into the large room `room`. */
export const largeClaimOf = (spec: ClaimSpec, room: Room): LargeClaim => ({
  ...spec,
  maxPlayers: room.maxPlayers,
  room,
});

// --- the port: where member items are kept (the table, or a Map) ---------------------------

export type MemberOp =
  | { readonly kind: 'put'; readonly account: string; readonly item: Item; readonly condition: Condition }
  | { readonly kind: 'update'; readonly account: string; readonly condition: Condition; readonly change: Change }
  | { readonly kind: 'delete'; readonly account: string; readonly condition: Condition };

/** All or nothing: the room item's part (already completed by core/rooms/rooms.ts) and the members'. */
export interface MemberTransaction {
  readonly room:
    | { readonly kind: 'update'; readonly condition: Condition; readonly change: Change }
    | { readonly kind: 'check'; readonly condition: Condition }
    | { readonly kind: 'put'; readonly item: Item }
    | { readonly kind: 'none' };
  readonly members: readonly MemberOp[];
}

export type TransactionOutcome =
  | { readonly applied: true }
  /** Another transaction held one of the items (real DynamoDB; DynamoDB Local serialises), or throttling. */
  | { readonly applied: false; readonly failed: 'conflict'; readonly cause: unknown }
  | { readonly applied: false; readonly failed: 'room'; readonly item?: Item }
  | { readonly applied: false; readonly failed: 'member'; readonly account: string; readonly item?: Item };

export interface LargeMemberItems {
  transact(roomId: string, tx: MemberTransaction): Promise<TransactionOutcome>;
  /** Strongly consistent. */
  get(roomId: string, account: string): Promise<Item | undefined>;
  /** Member items in account order after `after` (an account), at most `limit`. */
  page(roomId: string, limit: number, after?: string): Promise<{ items: Item[]; last?: string }>;
  /** Member items whose `x` lies before `now`, at most `limit`. */
  expiredBefore(roomId: string, now: number, limit: number): Promise<Item[]>;
  /** The member item holding this stored key hash, if any. */
  ofKey(roomId: string, keyHash: string): Promise<Item | undefined>;
}

// --- pure rules ----------------------------------------------------------------------------

/**
 * At most this many items one TransactWriteItems may hold
 * (https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_TransactWriteItems.html).
 */
export const maxTransactItems = 100;

/** At most this many expired members a full join removes in its own transaction (100 items per transaction). */
const largeReclaimPerJoin = 25;

/** Attempts of a write that lost a TransactionConflict (undo, confirm, abandon) before it answers UNAVAILABLE. */
const conflictAttempts = 6;

/**
 * At most this many expired members one sweep removes from one large session, in
 * transactions of `largeReclaimPerJoin`: a session whose reservations lapse faster is caught
 * up by the next sweeps, and by its full joins, which reclaim on their own.
 */
export const largeReclaimPerSweep = 100;

/** A page of `GET /v1/rooms/{roomId}/members`. */
const largeMembersPageSize = 100;

/** No earlier than the member's expiry; a pending reservation (spawning room) counts from the spawn deadline. */
function expiryBound(member: StoredMember, room: LargeClaim['room']): number | undefined {
  if (member.p !== undefined && room.state === 'spawning') {
    const deadline = Date.parse(room.spawnDeadline ?? '');
    return Number.isFinite(deadline) ? deadline + member.p : undefined;
  }
  return expiryOf(member, room);
}

/**
 * When DynamoDB may collect a member item (epoch s): no room outlives its creation plus its
 * lifetime bound, and its item is kept the ended-room retention after it ends, so its members
 * go no earlier than their room. A room without a lifetime bound (`bounds` absent) gives none.
 */
function memberTtlS(room: LargeClaim['room'], endedRetentionS: number): number | undefined {
  const created = room.createdAt === undefined ? Number.NaN : Date.parse(room.createdAt);
  if (!room.bounds || !Number.isFinite(created)) return undefined;
  return Math.ceil(created / 1000) + room.bounds.maxLifetimeS + endedRetentionS;
}

function memberItem(roomId: string, account: string, m: StoredMember, room: LargeClaim['room'], retentionS: number) {
  const x = expiryBound(m, room);
  const ttl = memberTtlS(room, retentionS);
  const item: Item = {
    ...keys.largeMember(roomId, account),
    type: 'member',
    roomId,
    account,
    m,
    ...(x === undefined ? {} : { x }),
    ...(ttl === undefined ? {} : { ttl }),
  };
  return item;
}

/** What a member item's `x` says at `now`: a tombstone or past its bound is no member any more. */
function isGone(item: Item, now: number): boolean {
  return item.g !== undefined || (typeof item.x === 'number' && item.x < now);
}

/** The member as the claim writes it: holding the new key, with the build it joined with. */
const claimedMember = (claim: LargeClaim, m: ClaimMember): StoredMember => ({
  ...m.member,
  k: m.keyHash,
  ...(claim.protocol === undefined ? {} : { v: claim.protocol }),
});

/** What one attempt writes besides the new members: own items to overwrite, others' to remove. */
interface ClaimPlan {
  /** Items of joining accounts in the way but gone: overwritten IF unchanged (`counted`: still in `players`). */
  readonly overwrite: ReadonlyMap<string, { readonly t: number; readonly counted: boolean }>;
  /** Other members' expired items, removed IF unchanged. */
  readonly remove: readonly { readonly account: string; readonly t: number }[];
}

const emptyPlan: ClaimPlan = { overwrite: new Map(), remove: [] };

/**
 * The claim's ONE transaction:
 *
 *   room: IF roomIsLive AND serverHeardFrom AND joinabilityOpen AND protocolAccepts AND settingsMatch
 *            AND playersBelow(maxPlayers − added + 1)   SET ADD players added (+ change number, updatedAt)
 *   each joining member: Put IF attribute_not_exists(pk) (or its gone item unchanged: m.t as read)
 *   each reclaimed member: Delete IF m.t as read
 */
function largeClaimWrite(claim: LargeClaim, plan: ClaimPlan, roomId: string, now: Date, retentionS: number) {
  const added = newSeats(claim, plan) - plan.remove.length;
  const room: RoomWrite = {
    condition: allOf(
      ...(added > 0 ? [is.playersBelow(claim.maxPlayers - added + 1)] : [is.playersAtLeast(-added)]),
      ...joinable(claim, now.getTime()),
    ),
    change: { add: [[['players'], added]] },
    now,
  };
  const members: MemberOp[] = [
    ...claim.members.map((m): MemberOp => {
      const held = claim.held?.[m.account];
      if (held) return rekeyOp(claim, m, held);
      const gone = plan.overwrite.get(m.account);
      return {
        kind: 'put',
        account: m.account,
        item: memberItem(roomId, m.account, claimedMember(claim, m), claim.room, retentionS),
        condition: gone ? equals(['m', 't'], gone.t) : absent('pk'),
      };
    }),
    ...plan.remove.map((r): MemberOp => ({ kind: 'delete', account: r.account, condition: equals(['m', 't'], r.t) })),
  ];
  return { room, members };
}

/** Slots the claim takes: its members, less those holding one already (held, or a counted gone item). */
const newSeats = (claim: LargeClaim, plan: ClaimPlan): number =>
  claim.members.filter((m) => claim.held?.[m.account] === undefined && plan.overwrite.get(m.account)?.counted !== true)
    .length;

/** A party member holding a live slot keeps it with the claim's key, IF still as read. */
function rekeyOp(claim: LargeClaim, m: ClaimMember, held: NonNullable<ClaimSpec['held']>[string]): MemberOp {
  return {
    kind: 'update',
    account: m.account,
    condition: stillAsRead(held.member.t, held.keyHash),
    change: rekeyChange(m.keyHash, claim.protocol),
  };
}

/**
 * A member's new key, and the build it joins with: the single-use mark (`u`) goes with the old
 * key, so the new key can confirm (core/rooms/member-writes.ts `reissueKeyWrite`).
 */
/** A member item a re-key replaces only as it was read: the same time, the same key (or none), not gone. */
function stillAsRead(t: number, keyHash: string | undefined) {
  return allOf(
    equals(['m', 't'], t),
    keyHash === undefined ? absent('m', 'k') : equals(['m', 'k'], keyHash),
    absent('g'),
  );
}

function rekeyChange(keyHash: string, protocol: string | undefined): Change {
  return {
    set: [[['m', 'k'], keyHash], ...(protocol === undefined ? [] : [[['m', 'v'], protocol] as const])],
    remove: [['m', 'u'], ...(protocol === undefined ? [['m', 'v']] : [])],
  };
}

/** The room's clock as its item holds it (to judge members against). */
function clockOf(item: Item): RoomClock {
  return {
    state: String(item.state),
    readyAt: item.readyAt as string | undefined,
    updatedAt: item.updatedAt as string | undefined,
    constants: item.constants as RoomClock['constants'],
    reservationTimeoutS: Number(item.reservationTimeoutS),
  };
}

// --- the store ---------------------------------------------------------------------------

/** Rooms' one write path for the room item's part: it adds existence, change number and `updatedAt`. */
type Complete = (write: RoomWrite) => { condition: Condition; change: Change };

/** Attempts within one claim: a reclaim and an overwrite of the joiner's own gone item. */
const claimSteps = 3;

/** The large-session half of the room store (core/rooms/rooms.ts calls it, nothing else does). */
export class LargeMembers implements LargeSessionStore {
  constructor(
    private readonly items: LargeMemberItems,
    private readonly complete: Complete,
    /** How long an ended room's item is kept (s): its member items are kept as long (`memberTtlS`). */
    private readonly endedRetentionS: number,
    private readonly clock: Pick<Clock, 'sleep'> = systemClock,
  ) {}

  private transact(roomId: string, roomWrite: RoomWrite | undefined, members: readonly MemberOp[]) {
    const room: MemberTransaction['room'] = roomWrite
      ? { kind: 'update', ...this.complete(roomWrite) }
      : { kind: 'none' };
    return this.items.transact(roomId, { room, members });
  }

  /**
   * A new large room, its item as a room's is written but without the members map, and its
   * creator's member item, in one transaction. Undefined, or the room item in the way.
   */
  async createRoom(item: Item, room: Room): Promise<Item | undefined> {
    const { members = {}, gone: _gone, ...roomItem } = item as Item & { members?: Record<string, StoredMember> };
    const roomId = room.roomId;
    const puts = Object.entries(members).map(([account, m]): MemberOp => ({
      kind: 'put',
      account,
      item: memberItem(roomId, account, m, room, this.endedRetentionS),
      condition: absent('pk'),
    }));
    const outcome = await this.items.transact(roomId, { room: { kind: 'put', item: roomItem }, members: puts });
    if (outcome.applied) return undefined;
    if (outcome.failed === 'conflict') throw outcome.cause;
    return outcome.item ?? {};
  }

  /** The join's claim: one transaction, again only to reclaim or to overwrite a gone item of the joiner. */
  async claim(roomId: string, claim: LargeClaim, now: number): Promise<ClaimResult> {
    let plan = emptyPlan;
    for (let step = 0; step < claimSteps; step++) {
      const write = largeClaimWrite(claim, plan, roomId, new Date(now), this.endedRetentionS);
      const outcome = await this.transact(roomId, write.room, write.members);
      if (outcome.applied) return this.claimed(claim);
      if (outcome.failed === 'conflict') return { state: 'Contention', cause: outcome.cause };
      const next =
        outcome.failed === 'member'
          ? memberInTheWay(outcome.item, outcome.account, claim, plan, now)
          : await this.roomInTheWay(roomId, outcome.item, claim, plan, now);
      if ('state' in next) return next;
      plan = next;
    }
    return { state: 'Retry' };
  }

  /** A transaction answers nothing: the room as the join knew it, the count as the write made it at least. */
  private claimed(claim: LargeClaim): ClaimResult {
    const room = claim.room as LargeClaim['room'] & Partial<Room>;
    return {
      state: 'Claimed',
      roomState: room.state === 'spawning' ? 'spawning' : 'ready',
      players: Math.min(claim.maxPlayers, (room.players ?? 0) + claim.members.length),
      changeNumber: (room.changeNumber ?? 0) + 1,
      ...(room.settings === undefined ? {} : { settings: room.settings }),
    };
  }

  /** The room refused: closed, mismatched, … as a claim would be told; full → reclaim its expired members once. */
  private async roomInTheWay(
    roomId: string,
    item: Item | undefined,
    claim: LargeClaim,
    plan: ClaimPlan,
    now: number,
  ): Promise<ClaimPlan | ClaimResult> {
    // The room's item holds no members: held slots are judged on the member items, not here.
    const { held: _held, ...asSolo } = claim;
    const failure = classifyClaimFailure(item, asSolo, now);
    if (failure.state !== 'Full' && failure.state !== 'Retry') return failure;
    const players = Number(item!.players);
    const counted = newSeats(claim, plan);
    if (players + counted - plan.remove.length <= Number(item!.maxPlayers)) return { state: 'Retry' };
    if (plan.remove.length > 0) return { state: 'Full' };
    const clock = clockOf(item!);
    const joining = new Set(claim.members.map((m) => m.account));
    // The room's item and one item per joining member share the transaction with the removals.
    const budget = Math.min(largeReclaimPerJoin, maxTransactItems - 1 - claim.members.length);
    if (budget <= 0) return { state: 'Full' };
    const expired = (await this.items.expiredBefore(roomId, now, budget + joining.size))
      .filter((x) => !joining.has(String(x.account)) && x.g === undefined)
      .map((x) => ({ account: String(x.account), m: memberOf(x.m, String(x.account)) }))
      .filter((x) => !isLiveMember(x.m, clock, now))
      .slice(0, budget);
    if (expired.length === 0 || players + counted - expired.length > Number(item!.maxPlayers)) return { state: 'Full' };
    return { ...plan, remove: expired.map((x) => ({ account: x.account, t: x.m.t })) };
  }

  async reissueKey(roomId: string, change: ReissueChange): Promise<ReissueResult> {
    const outcome = await this.items.transact(roomId, {
      room: {
        kind: 'check',
        condition: allOf(
          is.roomExists,
          ...(change.protocol === undefined ? [] : [is.protocolAccepts(change.protocol)]),
        ),
      },
      members: [
        {
          kind: 'update',
          account: change.account,
          condition: stillAsRead(change.member.t, change.oldKeyHash),
          change: rekeyChange(change.newKeyHash, change.protocol),
        },
      ],
    });
    if (outcome.applied) return 'Reissued';
    if (outcome.failed === 'room' && outcome.item) return buildMismatch(outcome.item, change.protocol) ?? 'Gone';
    return 'Gone';
  }

  /**
   * Undoes every seat of one claim in ONE transaction: `players` down by the seats it added,
   * each of their items removed, each re-keyed member given its old key back, each only while
   * it holds the claim's key. Seats apart, each transaction would update the room's item, and
   * concurrent transactions on one item cancel each other (TransactionConflict). A seat changed
   * since is left out; a conflict is retried with jittered backoff, a bounded number of times.
   */
  async undoClaims(roomId: string, undos: readonly UndoSeat[], now: Date): Promise<void> {
    let left = [...undos];
    for (let attempt = 0; attempt < conflictAttempts + undos.length && left.length > 0; attempt++) {
      const removed = left.filter((u) => !u.reissued).length;
      // `emptySince`: when the session was last left, read only once `players` is 0 (core/rooms/session-end.ts).
      const roomWrite: RoomWrite | undefined =
        removed === 0
          ? undefined
          : {
              condition: is.playersAtLeast(removed),
              change: { add: [[['players'], -removed]], set: [[['emptySince'], now.getTime()]] },
              now,
            };
      const outcome = await this.transact(roomId, roomWrite, left.map(undoOp));
      if (outcome.applied || outcome.failed === 'room') return;
      if (outcome.failed === 'member') left = left.filter((u) => u.account !== outcome.account);
      else await this.clock.sleep(jitteredBackoffMs(attempt, joinContentionBackoff));
    }
  }

  /** Removes a counted member item IF `condition`, and its count, in one transaction. */
  private async removeOne(roomId: string, account: string, condition: Condition, now: Date, tombstone?: string) {
    // `emptySince`: when the session was last left, read only once `players` is 0 (core/rooms/session-end.ts).
    const roomWrite: RoomWrite = {
      condition: is.playersAtLeast(1),
      change: { add: [[['players'], -1]], set: [[['emptySince'], now.getTime()]] },
      now,
    };
    const op: MemberOp = tombstone
      ? { kind: 'update', account, condition, change: { set: [[['g'], tombstone]], remove: [['x']] } }
      : { kind: 'delete', account, condition };
    const outcome = await this.transact(roomId, roomWrite, [op]);
    return outcome.applied;
  }

  /**
   * The sweeper's cleanup: members whose time ran out go, each only while as read, with
   * `players` counted down in the same transaction. How many it freed (at most `largeReclaimPerSweep`).
   */
  async reclaimExpired(roomId: string, room: RoomClock, now: Date): Promise<number> {
    const at = now.getTime();
    const expired = (await this.items.expiredBefore(roomId, at, largeReclaimPerSweep))
      .filter((item) => item.g === undefined)
      .map((item) => ({ account: String(item.account), m: memberOf(item.m, String(item.account)) }))
      .filter((x) => !isLiveMember(x.m, room, at));
    let freed = 0;
    for (let i = 0; i < expired.length; i += largeReclaimPerJoin) {
      const batch = expired.slice(i, i + largeReclaimPerJoin);
      const roomWrite: RoomWrite = {
        condition: is.playersAtLeast(batch.length),
        change: { add: [[['players'], -batch.length]], set: [[['emptySince'], at]] },
        now,
      };
      const removals = batch.map((x): MemberOp => ({
        kind: 'delete',
        account: x.account,
        condition: allOf(equals(['m', 't'], x.m.t), absent('g')),
      }));
      // A member confirmed or re-keyed meanwhile refuses its batch: the next sweep reads again.
      if ((await this.transact(roomId, roomWrite, removals)).applied) freed += batch.length;
    }
    return freed;
  }

  /** `DELETE …/members/me`: the caller's own member item, if it holds one. */
  async leaveAsPlayer(roomId: string, account: string, now: Date): Promise<boolean> {
    const item = await this.items.get(roomId, account);
    if (!item || item.g !== undefined) return false;
    const m = memberOf(item.m, account);
    return this.removeOne(roomId, account, allOf(equals(['m', 't'], m.t), absent('g')), now);
  }

  /** The account's own member as stored (the view judges its timeouts), unless it left. */
  async member(roomId: string, account: string): Promise<StoredMember | undefined> {
    const item = await this.items.get(roomId, account);
    return item && item.g === undefined ? memberOf(item.m, account) : undefined;
  }

  /** One page of live members in account order; `after`: the last account of the page before. */
  async page(roomId: string, room: RoomClock, now: number, after?: string) {
    const { items, last } = await this.items.page(roomId, largeMembersPageSize, after);
    const members = items
      .filter((item) => item.g === undefined)
      .map((item) => ({ account: String(item.account), member: memberOf(item.m, String(item.account)) }))
      .filter((x) => isLiveMember(x.member, room, now));
    return { members, ...(last === undefined ? {} : { last }) };
  }

  /**
   * `joined`: the key's member reserved → active, once (the request that used the key gets the
   * same answer). A write that lost to another reads again, a bounded number of times.
   */
  async confirm(read: SessionRead, keyHashHex: string, requestId: string, now: Date): Promise<ConfirmResult> {
    let cause: unknown;
    for (let attempt = 0; attempt < conflictAttempts; attempt++) {
      if (attempt > 0) await this.clock.sleep(jitteredBackoffMs(attempt - 1, joinContentionBackoff));
      const step = await this.confirmOnce(read, keyHashHex, requestId, now);
      if (!('lost' in step)) return step;
      cause = step.lost;
    }
    throw new DependencyUnavailableError('the session is busy: confirm again', { cause });
  }

  private async confirmOnce(
    read: SessionRead,
    keyHashHex: string,
    requestId: string,
    now: Date,
  ): Promise<ConfirmResult | { lost: unknown }> {
    const hash = storedKeyHash(keyHashHex);
    const roomId = read.room.roomId;
    const item = await this.items.ofKey(roomId, hash);
    if (!item || item.g !== undefined) return { state: 'Rejected', reason: 'unknown-key' };
    const account = String(item.account);
    const m = memberOf(item.m, account);
    if (m.u !== undefined) {
      if (m.u !== requestId) return { state: 'Rejected', reason: 'used' };
      return { state: 'AlreadyConfirmed', member: memberView(read.room, account, m, hash) };
    }
    if (!isLiveMember(m, read.room, now.getTime())) return { state: 'Rejected', reason: 'expired' };
    const confirmed: StoredMember = {
      ...m,
      s: 2,
      t: now.getTime(),
      u: requestId,
      a: now.getTime(),
      b: preConfirmation(m),
    };
    const { e: _e, p: _p, ...active } = confirmed;
    const outcome = await this.transact(roomId, undefined, [
      {
        kind: 'update',
        account,
        condition: allOf(equals(['m', 'k'], hash), absent('m', 'u'), absent('g')),
        change: { set: [[['m'], active]], remove: [['x']] },
      },
    ]);
    if (outcome.applied) return { state: 'Confirmed', member: memberView(read.room, account, active, hash) };
    return { lost: outcome.failed === 'conflict' ? outcome.cause : outcome };
  }

  /**
   * The game never got its `joined` answer: the member the key's confirmation made active is
   * put back as it stood before (`b`), IF that request still holds it, its expiry with it.
   */
  async abandon(read: SessionRead, keyHashHex: string, requestId: string): Promise<AbandonResult> {
    const hash = storedKeyHash(keyHashHex);
    const roomId = read.room.roomId;
    const item = await this.items.ofKey(roomId, hash);
    if (!item || item.g !== undefined) return 'NothingToUndo';
    const account = String(item.account);
    const m = memberOf(item.m, account);
    if (m.u !== requestId) return 'NothingToUndo';
    const { u: _u, ...unused } = m;
    const restored: StoredMember = m.b ? { ...m.b, ...ownFields(m), k: hash } : { ...unused, k: hash };
    const x = expiryBound(restored, read.room);
    const op: MemberOp = {
      kind: 'update',
      account,
      condition: allOf(equals(['m', 'k'], hash), equals(['m', 'u'], requestId), absent('g')),
      change: { set: [[['m'], restored], ...(x === undefined ? [] : [[['x'], x] as const])] },
    };
    for (let attempt = 0; attempt < conflictAttempts; attempt++) {
      if (attempt > 0) await this.clock.sleep(jitteredBackoffMs(attempt - 1, joinContentionBackoff));
      const outcome = await this.transact(roomId, undefined, [op]);
      if (outcome.applied) return 'Reverted';
      if (outcome.failed !== 'conflict') return 'NothingToUndo';
    }
    return 'NothingToUndo';
  }

  /** `left`: the key's member goes, its item kept as a tombstone naming the request (a redelivery's answer). */
  async leave(roomId: string, keyHashHex: string, requestId: string, now: Date): Promise<LeaveResult> {
    const hash = storedKeyHash(keyHashHex);
    const item = await this.items.ofKey(roomId, hash);
    if (!item) return { state: 'Rejected' };
    if (item.g !== undefined) return item.g === requestId ? { state: 'Left' } : { state: 'Rejected' };
    const condition = allOf(equals(['m', 'k'], hash), absent('g'));
    if (await this.removeOne(roomId, String(item.account), condition, now, requestId)) return { state: 'Left' };
    const again = await this.items.ofKey(roomId, hash);
    return again?.g === requestId ? { state: 'Left' } : { state: 'Rejected' };
  }
}

/**
 * A joining account's item was in the way: a live member keeps its slot (re-keyed by the join);
 * a gone one (expired, or a tombstone) is overwritten IF unchanged.
 */
function memberInTheWay(
  item: Item | undefined,
  account: string,
  claim: LargeClaim,
  plan: ClaimPlan,
  now: number,
): ClaimPlan | ClaimResult {
  // A reclaimed member of another account changed meanwhile (confirmed, re-keyed, left): it stays.
  if (!claim.members.some((m) => m.account === account))
    return { ...plan, remove: plan.remove.filter((r) => r.account !== account) };
  // A held member re-keyed meanwhile, or gone: the party is planned again from what it holds now.
  if (!item)
    return claim.held?.[account] ? { state: 'Replan', held: withoutAccount(claim.held, account) } : { state: 'Retry' };
  const m = memberOf(item.m, account);
  if (!isGone(item, now)) {
    const slot = { member: m, ...(m.k === undefined ? {} : { keyHash: m.k }) };
    if (claim.members.length === 1) return { state: 'AlreadyMember', ...slot };
    return { state: 'Replan', held: { ...claim.held, [account]: slot } };
  }
  if (claim.held?.[account]) return { state: 'Replan', held: withoutAccount(claim.held, account) };
  const overwrite = new Map(plan.overwrite);
  overwrite.set(account, { t: m.t, counted: item.g === undefined });
  return { ...plan, overwrite };
}

type UndoSeat = LargeUndo;

/** One seat's undo: its put item goes, a re-keyed member gets its old key and build back. */
function undoOp(undo: UndoSeat): MemberOp {
  const holds = equals(['m', 'k'], undo.keyHash);
  if (!undo.reissued) return { kind: 'delete', account: undo.account, condition: holds };
  const set = [
    ...(undo.previousKeyHash === undefined ? [] : [[['m', 'k'], undo.previousKeyHash] as const]),
    ...(undo.previousBuild === undefined ? [] : [[['m', 'v'], undo.previousBuild] as const]),
  ];
  const remove = [
    ...(undo.previousKeyHash === undefined ? [['m', 'k']] : []),
    ...(undo.previousBuild === undefined ? [['m', 'v']] : []),
  ];
  return { kind: 'update', account: undo.account, condition: holds, change: { set, remove } };
}

function withoutAccount<T>(map: Readonly<Record<string, T>>, account: string): Record<string, T> {
  const { [account]: _gone, ...rest } = map;
  return rest;
}

type JoinWrites = Pick<RoomStore, 'claim' | 'reissueKey'> & Pick<LargeSessionStore, 'undoClaims'>;

/**
 * The join's writes for `room`: a large session's go to its member items (one transaction
 * each), any other's to the room's document (its seats' undos one conditional write each:
 * document writes on one item do not cancel each other).
 */
export function joinWritesFor(
  room: Room,
  sessions: Pick<RoomStore, 'claim' | 'reissueKey' | 'undoClaim'> & Partial<Pick<RoomStore, 'large'>>,
): JoinWrites {
  const large = isLargeSession(room.constants) ? sessions.large : undefined;
  if (!large)
    return {
      claim: (roomId, spec, now) => sessions.claim(roomId, spec, now),
      reissueKey: (roomId, change) => sessions.reissueKey(roomId, change),
      undoClaims: async (roomId, undos, now) => {
        await Promise.all(undos.map((undo) => sessions.undoClaim(roomId, undo, now).catch(() => undefined)));
      },
    };
  return {
    claim: (roomId, spec, now) => large.claim(roomId, largeClaimOf(spec, room), now),
    reissueKey: (roomId, change) => large.reissueKey(roomId, change),
    undoClaims: (roomId, undos, now) => large.undoClaims(roomId, undos, now),
  };
}
