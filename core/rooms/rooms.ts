import { classifyDependencyError } from '../infra/dependency-errors';
import type { StoredProtocol } from '../versions/protocol';
import { keys } from '../infra/keys';
import { knownHost } from '../gameservers/server-address';
import {
  docMember,
  documentOf,
  expiredMembers,
  memberOfKey,
  storedKeyHash,
  tombstoneOf,
  tombstoneRequest,
  tombstonesToPrune,
  SessionDocumentCorruptError,
  type DocMember,
  type SessionDocument,
} from './document';
import { SessionMemberTooLargeError } from './session-errors';
import { memberBudgetIssue } from './item-budget';
import {
  buildMismatch,
  claimWrite,
  classifyClaimFailure,
  maxReclaimPerWrite,
  reclaimAndClaimWrite,
} from './join-conditions';
import { RoomAlreadyExistsError, RoomNotFoundError } from './errors';
import type { Member, NewMember } from './member';
import { LargeMembers, type LargeMemberItems } from './large-members';
import { isLargeSession } from './session-model';
import {
  abandonWrite,
  confirmation,
  confirmationRefused,
  departedAt,
  memberView,
  refusedBuildWrite,
  reissueKeyWrite,
  removeMembersWrite,
  undoClaimWrite,
  type TombstoneWrite,
} from './member-writes';
import { storedHost, type Placement, type Room, type RoomFailureReason, type RoomSettings } from './model';
import { replaceable, replacementWrite } from './replacement';
import { socketBackWrite, socketLostWrite } from './presence';
import { hostSeenWrite } from './host';
import { roomConditions as is } from './room-conditions';
import { savedStateOf } from './saved-state';
import { absent, allOf, anyOf, mergeChanges, type Change, type Condition, type Item } from './room-expression';
import { checkNewRoomBudget, endedRoomTtlS, firstMembers, roomItem, roomOf } from './room-item';
import {
  allChangedAt,
  changeKindsOf,
  changeNumbersAttribute,
  changeNumbersOf,
  changeNumbersWrite,
} from './change-kinds';
import type {
  AbandonResult,
  ClaimResult,
  ClaimSpec,
  ConfirmResult,
  HandOver,
  HeartbeatResult,
  ItemWriteResult,
  LeaveResult,
  ReissueResult,
  Replacement,
  RoomItems,
  RoomListing,
  RoomStore,
  RoomWrite,
  ItemWrite,
  TransactOutcome,
  SessionRead,
  SessionWriteResult,
  TransitionResult,
  SocketHeard,
  LargeSessionStore,
} from './room-store';

export interface RoomsOptions {
  /** How long an ended room stays readable before TTL collects it (`ENDED_ROOM_RETENTION_S`). */
  readonly endedRetentionS?: number;
  /** Where large sessions' member items are kept (core/rooms/large-members.ts); absent: no large sessions. */
  readonly largeMembers?: LargeMemberItems;
}

const readOf = (item: Item): SessionRead => {
  const saved = savedStateOf(item);
  const changedAt = changeNumbersOf(item[changeNumbersAttribute]);
  return {
    room: roomOf(item),
    doc: documentOf(item),
    ...(saved ? { saved } : {}),
    ...(changedAt ? { changedAt } : {}),
  };
};

const set = (fields: Record<string, unknown>): Change => ({
  set: Object.entries(fields).map(([name, value]) => [[name], value] as const),
});

/**
 * The room aggregate's one writer, on any `RoomItems` (the table, or a Map). Every write
 * passes through `write`, which adds what every write to a room does, once.
 */
/** A socket heard with nothing known of the room: both writes, each refused when it does not apply. */
const everything: SocketHeard = { host: true, returning: true };

export class Rooms implements RoomStore {
  private readonly endedRetentionS: number;
  private readonly largeMembers?: LargeMembers;

  constructor(
    private readonly items: RoomItems,
    options: RoomsOptions = {},
  ) {
    this.endedRetentionS = options.endedRetentionS ?? endedRoomTtlS;
    if (options.largeMembers) {
      this.largeMembers = new LargeMembers(
        options.largeMembers,
        (write) => completeWrite(write, this.endedRetentionS),
        this.endedRetentionS,
      );
    }
  }

  /** The large-session half (core/rooms/large-members.ts): every write of it still passes `completeWrite`. */
  get large(): LargeSessionStore {
    if (!this.largeMembers) throw new Error('this room store keeps no large sessions');
    return this.largeMembers;
  }

  /** The large-session half when `room` is a large session. */
  private largeOf(room: Pick<Room, 'constants'>): LargeMembers | undefined {
    return isLargeSession(room.constants) ? (this.large as LargeMembers) : undefined;
  }

  /**
   * A creator's reservation without a fixed expiry is pending: its clock starts at `inited`.
   * A put that timed out may have been applied, and the retry then finds the room it wrote
   * itself: that is this creation succeeding, not a clash.
   */
  async createWithMember(room: Room, member?: NewMember | readonly NewMember[]): Promise<void> {
    const members = firstMembers(room, member);
    const item = { ...roomItem(room, members), [changeNumbersAttribute]: allChangedAt(room.changeNumber) };
    checkNewRoomBudget(room.roomId, item, members);
    const large = this.largeOf(room);
    const existing = large ? await large.createRoom(item, room) : await this.items.putNew(item);
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

  /**
   * `inited` settings replace the room's, and the server's build is kept in the same write; the
   * request id tells a redelivered `inited` from a second one.
   */
  async markReady(
    roomId: string,
    change: { settings?: RoomSettings; protocol?: StoredProtocol; initedBy: string; address: string; now: Date },
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
        // With ready: no join sees a ready room before it knows which build the room serves.
        ...(change.protocol ? { protocol: change.protocol } : {}),
      }),
      now: change.now,
    });
  }

  async updateSettings(
    roomId: string,
    settings: RoomSettings,
    fence: { epoch: number; now: Date },
  ): Promise<'updated' | 'not-live' | 'replaced'> {
    const result = await this.write(roomId, {
      condition: allOf(is.roomIsLive, anyOf(absent('host'), is.hostEpochIs(fence.epoch))),
      change: set({ settings }),
      now: fence.now,
    });
    if (result.applied) return 'updated';
    const state = result.item?.state;
    return state === 'spawning' || state === 'ready' ? 'replaced' : 'not-live';
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

  async replaceServer(read: SessionRead, replacement: Replacement): Promise<TransitionResult> {
    if (!replaceable(read.room)) return { applied: false, room: read.room };
    return this.transition(read.room.roomId, replacementWrite(read, read.room, replacement));
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

  /**
   * Spawning or ready alike: an operator may end a room whose server never came up. Of two
   * closes at once, the condition lets exactly one apply; the other sees the room ended.
   */
  closeByAdmin(roomId: string, now: Date): Promise<TransitionResult> {
    return this.transition(roomId, {
      condition: is.roomIsLive,
      change: set({ state: 'closed', failureReason: 'closed-by-admin' }),
      now,
      ends: true,
    });
  }

  async recordHeartbeat(roomId: string, now: Date, epoch?: number): Promise<HeartbeatResult> {
    // The whole item comes back with the write (`ALL_NEW`): DynamoDB consumes no read capacity
    // for a return value, only a larger answer (`ReturnValues` in
    // https://docs.aws.amazon.com/amazondynamodb/latest/APIReference/API_UpdateItem.html), so
    // judging the room's cost bounds at every heartbeat costs no request of its own.
    const result = await this.write(roomId, {
      condition:
        epoch === undefined ? is.roomIsLive : allOf(is.roomIsLive, anyOf(absent('host'), is.hostEpochIs(epoch))),
      change: set({ lastHeartbeatAt: now.toISOString() }),
      now,
      quiet: true,
    });
    if (!result.applied) return { applied: false, ...(result.item ? { room: roomOf(result.item) } : {}) };
    const doc = documentIfSound(result.item);
    return { applied: true, room: roomOf(result.item), ...(doc ? { doc } : {}) };
  }

  async writeSession(roomId: string, write: RoomWrite): Promise<SessionWriteResult> {
    const result = await this.write(roomId, write);
    if (result.applied) return { applied: true, read: readOf(result.item) };
    return { applied: false, ...(result.item ? { current: readOf(result.item) } : {}) };
  }

  endSession(roomId: string, changeNumber: number): Promise<boolean> {
    return this.items.delete(roomId, is.unchangedSince(changeNumber));
  }

  /**
   * `account`: a large session's read then also holds that account's own member (one more
   * GetItem), and only it: its document never holds the list.
   */
  async read(roomId: string, account?: string): Promise<SessionRead | undefined> {
    const item = await this.items.get(roomId);
    if (!item) return undefined;
    const read = readOf(item);
    const large = account === undefined ? undefined : this.largeOf(read.room);
    if (!large) return read;
    const own = await large.member(roomId, account!);
    return own ? { ...read, doc: { ...read.doc, members: { [account!]: own } } } : read;
  }

  async listMembers(roomId: string): Promise<Member[]> {
    const read = await this.read(roomId);
    if (!read) return [];
    return Object.entries(read.doc.members).map(([account, m]) => memberView(read.room, account, m, m.k));
  }

  async findMember(roomId: string, account: string): Promise<Member | undefined> {
    return (await this.listMembers(roomId)).find((m) => m.account === account);
  }

  claim(roomId: string, spec: ClaimSpec, now: number): Promise<ClaimResult> {
    return this.claimWith(roomId, claimWrite(spec, new Date(now)), spec, now);
  }

  reclaimAndClaim(
    roomId: string,
    spec: ClaimSpec & { expired: readonly DocMember[]; maxPlayers: number },
    now: number,
  ): Promise<ClaimResult> {
    return this.claimWith(roomId, reclaimAndClaimWrite(spec, new Date(now)), spec, now);
  }

  private async claimWith(roomId: string, write: RoomWrite, spec: ClaimSpec, now: number): Promise<ClaimResult> {
    // The one write that adds members: each may take no more than its share of the item.
    for (const seat of spec.members) {
      const issue = memberBudgetIssue(seat.account, { ...seat.member, k: seat.keyHash });
      if (issue !== undefined) throw new SessionMemberTooLargeError(roomId, issue);
    }
    let result: ItemWriteResult;
    try {
      result = await this.write(roomId, write, 'updated');
    } catch (error) {
      // A busy item or DynamoDB (a running transaction, throttling, slow to answer) is retried
      // within the join's deadline. A timed-out claim may have been applied: its retry then finds
      // the account a member (AlreadyMember) and re-keys the same slot, so no slot is taken twice.
      const kind = classifyDependencyError(error)?.kind;
      if (kind === 'contention' || kind === 'throttled' || kind === 'timeout')
        return { state: 'Contention', cause: error };
      throw error;
    }
    if (!result.applied) return classifyClaimFailure(result.item, spec, now);
    return {
      state: 'Claimed',
      roomState: result.item.state as ClaimedRoomState,
      players: Number(result.item.players),
      changeNumber: Number(result.item.changeNumber),
      ...(result.item.settings === undefined ? {} : { settings: result.item.settings as RoomSettings }),
    };
  }

  async reissueKey(roomId: string, change: Parameters<RoomStore['reissueKey']>[1]): Promise<ReissueResult> {
    const result = await this.write(roomId, reissueKeyWrite(change));
    if (result.applied) return 'Reissued';
    return (result.item && buildMismatch(result.item, change.protocol)) ?? 'Gone';
  }

  async undoClaim(
    roomId: string,
    undo: { account: string; keyHash: string; previousKeyHash?: string; previousBuild?: string; reissued: boolean },
    now: Date,
  ): Promise<void> {
    await this.write(roomId, undoClaimWrite(undo, now));
  }

  async reclaimExpired(roomId: string, now: Date, read?: SessionRead): Promise<number> {
    const current = read ?? (await this.read(roomId));
    if (!current) return 0;
    const large = this.largeOf(current.room);
    if (large) return large.reclaimExpired(roomId, current.room, now);
    const expired = expiredMembers(current.doc, current.room, now.getTime());
    let freed = 0;
    for (let i = 0; i < expired.length; i += maxReclaimPerWrite) {
      const batch = expired.slice(i, i + maxReclaimPerWrite);
      const write = removeMembersWrite(batch, now, departedAt(current, batch));
      if ((await this.write(roomId, write)).applied) freed += batch.length;
    }
    return freed;
  }

  async confirm(read: SessionRead, keyHashHex: string, requestId: string, now: Date): Promise<ConfirmResult> {
    const large = this.largeOf(read.room);
    if (large) return large.confirm(read, keyHashHex, requestId, now);
    const hash = storedKeyHash(keyHashHex);
    const judged = confirmation(read, hash, requestId, now);
    if ('answer' in judged) return this.refuseConfirmation(read, judged.answer, hash, now);
    const result = await this.write(read.room.roomId, judged.write);
    if (result.applied) return { state: 'Confirmed', member: judged.confirmed };
    const current = result.item ? readOf(result.item) : undefined;
    return this.refuseConfirmation(current, confirmationRefused(current, hash, requestId), hash, now);
  }

  /** A refusal for the member's build also takes its slot back (`refusedBuildWrite`). */
  private async refuseConfirmation(
    read: SessionRead | undefined,
    answer: ConfirmResult,
    hash: string,
    now: Date,
  ): Promise<ConfirmResult> {
    const write = answer.state === 'Mismatch' && read ? refusedBuildWrite(read, hash, now) : undefined;
    if (write && read) await this.write(read.room.roomId, write);
    return answer;
  }

  async abandon(roomId: string, keyHashHex: string, requestId: string, now: Date): Promise<AbandonResult> {
    const read = await this.read(roomId);
    const large = read && this.largeOf(read.room);
    if (large) return large.abandon(read, keyHashHex, requestId);
    const write = read && abandonWrite(read, storedKeyHash(keyHashHex), requestId, now);
    if (!write) return 'NothingToUndo';
    return (await this.write(roomId, write)).applied ? 'Reverted' : 'NothingToUndo';
  }

  /**
   * Removes the key's member and records the `left` that did it in `gone` (pruning old
   * tombstones in the same write); a redelivery of that `left` finds the tombstone.
   */
  async leave(roomId: string, keyHashHex: string, requestId: string, now: Date): Promise<LeaveResult> {
    const hash = storedKeyHash(keyHashHex);
    for (let attempt = 0; attempt < leaveAttempts; attempt++) {
      const read = await this.read(roomId);
      if (!read) return { state: 'Rejected' };
      const large = this.largeOf(read.room);
      if (large) return large.leave(roomId, keyHashHex, requestId, now);
      const tomb = read.doc.gone[hash];
      if (tomb !== undefined) return tombstoneRequest(tomb) === requestId ? { state: 'Left' } : { state: 'Rejected' };
      // No member holds the key: it was never this room's, its member left by other means, or
      // its tombstone was pruned (older than the hour, or past the newest 128). Nobody is removed.
      const found = memberOfKey(read.doc, hash);
      if (!found) return { state: 'Rejected' };
      const tombstone: TombstoneWrite = {
        keyHash: hash,
        value: tombstoneOf(now.getTime(), requestId),
        prune: tombstonesToPrune(read.doc.gone, now.getTime(), maxReclaimPerWrite),
        seen: Object.keys(read.doc.gone).length,
      };
      const target = { ...found, keyHash: hash };
      if ((await this.write(roomId, removeMembersWrite([target], now, leftAt(read, now), tombstone))).applied) {
        return { state: 'Left' };
      }
    }
    return { state: 'Rejected' };
  }

  async leaveAsPlayer(roomId: string, account: string, now: Date): Promise<boolean> {
    for (let attempt = 0; attempt < leaveAttempts; attempt++) {
      const read = await this.read(roomId);
      const large = read && this.largeOf(read.room);
      if (large) return large.leaveAsPlayer(roomId, account, now);
      const member = read?.doc.members[account];
      if (!read || !member) return false;
      // No tombstone: it would answer nothing differently. A later `left` or `joined` with the
      // member's key finds no member holding it and is rejected, tombstone or not.
      const write = removeMembersWrite([docMember(account, member)], now, leftAt(read, now));
      if ((await this.write(roomId, write)).applied) return true;
    }
    return false;
  }

  async handOver(
    roomId: string,
    listing: Omit<RoomListing, 'roomId' | 'createdAt' | 'standby'>,
    handOver: HandOver,
  ): Promise<SessionRead | undefined> {
    const result = await this.write(roomId, handOverWrite(roomId, listing, handOver));
    // The write's answer is the whole new session document: the create answers from it, no read.
    return result.applied ? readOf(result.item) : undefined;
  }

  async listStandby(listing: Omit<RoomListing, 'standby' | 'bucket'>, now: Date): Promise<boolean> {
    const result = await this.write(listing.roomId, {
      condition: allOf(is.roomIsStandby, is.roomIsLive, is.notInGsi1),
      change: {},
      now,
      quiet: true,
      lists: { ...listing, standby: true },
    });
    return result.applied;
  }

  async noteSocketAlive(roomId: string, account: string, now: Date, heard: SocketHeard = everything): Promise<void> {
    // Two conditions, so two writes: the host's sign of life is quiet (no tap), a member's
    // return is a change. The caller says which can apply (a subscribe knows from its read).
    if (heard.host) await this.write(roomId, hostSeenWrite(account, now));
    if (heard.returning) await this.write(roomId, socketBackWrite(account, now));
  }

  async noteSocketLost(roomId: string, account: string, now: Date): Promise<void> {
    await this.write(roomId, socketLostWrite(account, now));
  }

  private async transition(roomId: string, write: RoomWrite): Promise<TransitionResult> {
    const result = await this.write(roomId, write);
    if (result.applied) return { applied: true, room: roomOf(result.item) };
    return { applied: false, ...(result.item ? { room: roomOf(result.item) } : {}) };
  }

  /** The one write path of a room item. */
  async transactWrite(roomId: string, write: RoomWrite, alongside: readonly ItemWrite[]): Promise<TransactOutcome> {
    const { condition, change } = completeWrite(write, this.endedRetentionS);
    try {
      return await this.items.transact(roomId, condition, change, alongside);
    } catch (error) {
      if (!isMissingMapError(error) || !(await this.recordChangeNumbers(roomId))) throw error;
      return this.items.transact(roomId, condition, change, alongside);
    }
  }

  private async write(roomId: string, write: RoomWrite, answer?: 'updated'): Promise<ItemWriteResult> {
    const { condition, change } = completeWrite(write, this.endedRetentionS);
    try {
      return await this.items.update(roomId, condition, change, answer);
    } catch (error) {
      if (!isMissingMapError(error) || !(await this.recordChangeNumbers(roomId))) throw error;
      return this.items.update(roomId, condition, change, answer);
    }
  }

  /**
   * A room stored before change kinds were recorded has no `cn` map to write into (DynamoDB
   * refuses a path under a missing map). It gets one, every kind at its current change number
   * (what changed before is unknown, so all of it may have), once: only while it still has none
   * and nothing changed since the read. Answers whether the map is there now.
   */
  private async recordChangeNumbers(roomId: string): Promise<boolean> {
    const item = await this.items.get(roomId);
    if (!item || item[changeNumbersAttribute] !== undefined) return item !== undefined;
    const changeNumber = Number(item.changeNumber);
    const result = await this.items.update(
      roomId,
      allOf(is.roomExists, absent(changeNumbersAttribute), is.unchangedSince(changeNumber)),
      { set: [[[changeNumbersAttribute], allChangedAt(changeNumber)]] },
    );
    return result.applied || result.item?.[changeNumbersAttribute] !== undefined;
  }
}

/** DynamoDB's refusal of a write to a path under a map the item lacks (the in-memory store's too). */
const isMissingMapError = (error: unknown): boolean =>
  error instanceof Error && /document path .*invalid for update/.test(error.message);

type ClaimedRoomState = Extract<ClaimResult, { state: 'Claimed' }>['roomState'];

/** A `left` or a player's leave reads again and retries this often when a write came between. */
const leaveAttempts = 3;

/** When the session was left empty, if it is: never before an earlier departure. */
const leftAt = (read: SessionRead, now: Date) => Math.max(read.room.emptySince ?? 0, now.getTime());

/**
 * A standby server becomes the creator's room: its settings, session and first members; the
 * creator's reservation runs from the create, not from when the server became ready. Listed
 * for the creator's game in the same write that takes it out of the standby index, so no
 * create is offered a taken server.
 *
 *   IF roomIsStandby AND roomIsReady AND protocolAccepts (the creator sent a build to check)
 */
function handOverWrite(
  roomId: string,
  listing: Omit<RoomListing, 'roomId' | 'createdAt' | 'standby'>,
  handOver: HandOver,
): RoomWrite {
  const { members, host, protocol, ...fields } = handOver;
  return {
    condition: allOf(
      is.roomIsStandby,
      is.roomIsReady,
      ...(protocol === undefined ? [] : [is.protocolAccepts(protocol)]),
    ),
    change: {
      ...set({
        ...fields,
        players: Object.keys(members).length,
        members,
        gone: {},
        readyAt: handOver.createdAt,
        host: storedHost(host),
      }),
      remove: [['standby']],
    },
    now: new Date(handOver.createdAt),
    lists: { ...listing, roomId, createdAt: handOver.createdAt },
    unlists: ['gsi1'],
  };
}

/**
 * What every write to a room adds to the use case's own: the room must exist; unless quiet,
 * one more change, `updatedAt` and the kinds it changes at that change (`cn`, from the paths it
 * touches: core/rooms/change-kinds.ts); a write that ends the room sets its `ttl` (collected a
 * retention later) and removes every index key, so no lookup ever offers it again.
 */
export function completeWrite(write: RoomWrite, endedRetentionS: number): { condition: Condition; change: Change } {
  const condition = write.condition ? allOf(is.roomExists, write.condition) : is.roomExists;
  const bookkeeping: Change = write.quiet
    ? {}
    : {
        set: [[['updatedAt'], write.now.toISOString()]],
        add: [[['changeNumber'], 1]],
        ...changeNumbersWrite(changeKindsOf(write.change)),
      };
  const ending: Change = write.ends
    ? {
        set: [[['ttl'], Math.ceil(write.now.getTime() / 1000) + endedRetentionS]],
        remove: keys.roomIndexAttributes.map((name) => [name]),
      }
    : {};
  return { condition, change: mergeChanges(write.change, bookkeeping, ending, indexing(write)) };
}

/** The index keys a write lists the room under, and those it takes away. */
function indexing(write: RoomWrite): Change {
  const listed = write.lists ? Object.entries(keys.roomIndexes(write.lists)) : [];
  const listedNames = new Set(listed.map(([name]) => name));
  const unlisted = (write.unlists ?? [])
    .flatMap((index) => [`${index}pk`, `${index}sk`])
    .filter((name) => !listedNames.has(name));
  return { set: listed.map(([name, value]) => [[name], value] as const), remove: unlisted.map((name) => [name]) };
}

/**
 * The item's document, or undefined when it does not parse: a heartbeat is still applied, and
 * the reads that meet the document report it.
 */
function documentIfSound(item: Item): SessionDocument | undefined {
  try {
    return documentOf(item);
  } catch (error) {
    if (error instanceof SessionDocumentCorruptError) return undefined;
    throw error;
  }
}

/** Whether the item in the way of a create is this very room (same owner, same creation instant). */
function isSameCreation(existing: Item, room: Room): boolean {
  return existing.owner === room.owner && existing.createdAt === room.createdAt && existing.roomId === room.roomId;
}
