import type { ChangeNumbers } from './change-kinds';
import type { DocMember, RoomClock, SessionDocument, StoredMember } from './document';
import type { Member, NewMember } from './member';
import type { Placement, Room, RoomBounds, RoomFailureReason, RoomHost, RoomSettings } from './model';
import type { Change, Condition, Item } from './room-expression';
import type { ItemKey } from '../infra/keys';
import type { StoredProtocol } from '../versions/protocol';

/** The arbiter's saved state as the room's item holds it (core/rooms/saved-state.ts). */
export interface SavedState {
  readonly epoch: number;
  /** Epoch ms. */
  readonly savedAt: number;
  /** The state as JSON text, exactly as it was saved. */
  readonly state: string;
}

/** What the replacement write is told besides the room as read. */
export interface Replacement {
  readonly now: Date;
  /** Past it the replacement has failed to come up (the configuration's spawn timeout from `now`). */
  readonly spawnDeadline: Date;
  /**
   * What the replacement is started from: `deploymentOf` the configuration as it is now, and
   * whether that configuration checks builds (`false`: it turned the check off).
   */
  readonly deployment: string;
  readonly protocolCheck: boolean;
}

/** A room as one consistent read sees it: the room fields and its members. */
export interface SessionRead {
  readonly room: Room;
  readonly doc: SessionDocument;
  /** The arbiter's saved state (`saved`, core/rooms/saved-state.ts), if it saved one. */
  readonly saved?: SavedState;
  /** When each kind of the room last changed (`cn`, core/rooms/change-kinds.ts); absent on rooms stored before. */
  readonly changedAt?: ChangeNumbers;
}

/** A member joining again: its fresh key and the build it joins with (core/rooms/member-writes.ts `reissueKeyWrite`). */
export interface ReissueChange {
  readonly account: string;
  readonly member: StoredMember;
  readonly oldKeyHash?: string;
  readonly newKeyHash: string;
  /** The build (set hash) this join sent; absent: none. */
  readonly protocol?: string;
  readonly now: number;
}

/** One account a claim seats: the hash of the key it is given, and the member it is written as. */
export interface ClaimMember {
  readonly account: string;
  readonly keyHash: string;
  readonly member: StoredMember;
}

/** A party member holding a live slot already, as read: it keeps the slot, re-keyed by the claim's write. */
export interface HeldSlot {
  readonly member: StoredMember;
  /** The key hash it holds (absent: it holds none). */
  readonly keyHash?: string;
}

/** A join's claim (core/rooms/join-conditions.ts builds its write): every member or none. */
export interface ClaimSpec {
  /** Who the claim seats, the caller first; a solo join is the list of one. */
  readonly members: readonly ClaimMember[];
  /**
   * Party members found holding live slots (never a solo join's: it re-keys with `reissueKey`),
   * by account: re-keyed in the claim's write while each is still as read.
   */
  readonly held?: Readonly<Record<string, HeldSlot>>;
  /** The room's player cap: a claim of several slots needs it (`players` + slots ≤ it). */
  readonly maxPlayers?: number;
  /** A ready room must have been heard from at or after this instant (ISO); undefined: not checked. */
  readonly heartbeatSince?: string;
  /**
   * The set hash of the client's build (docs/versions.md), sent and checked: the room's server
   * must be of the same build, or have reported none (`protocolAccepts`). Undefined: not checked.
   */
  readonly protocol?: string;
  /** Matchmaking's criteria: the room's settings must still hold each (`settingsMatch`). */
  readonly criteria?: Readonly<Record<string, unknown>>;
}

/** What a successful claim hands back (only what it updated): enough to answer without a read. */
interface Claimed {
  readonly state: 'Claimed';
  readonly roomState: Room['state'];
  readonly players: number;
  readonly changeNumber: number;
  /** The room's settings as the claim found them (echoed by the write). */
  readonly settings?: RoomSettings;
}

/** Why a claim's condition failed, told apart from the item as it stood (`ALL_OLD`). */
export type ClaimFailure =
  | { readonly state: 'NotFound' }
  | { readonly state: 'NotJoinable'; readonly reason: string }
  /**
   * The room's server is of another build than the client's (`ClaimSpec.protocol`); `room`
   * as the write found it, so its server is told at its current epoch.
   */
  | { readonly state: 'Mismatch'; readonly server: StoredProtocol; readonly room: Room }
  /** The room's settings no longer hold the claim's criteria. */
  | { readonly state: 'NotMatching' }
  /** Ready, but its server has not been heard from since the claim's heartbeat cutoff. */
  | { readonly state: 'Silent' }
  | { readonly state: 'AlreadyMember'; readonly member: StoredMember; readonly keyHash?: string }
  /**
   * A party's members holding live slots now differ from the claim's `held`: claim again with
   * these held (each re-keyed in that write). Never answered to a solo join (`AlreadyMember`).
   */
  | { readonly state: 'Replan'; readonly held: Readonly<Record<string, HeldSlot>> }
  /** No free slot, but these members' time ran out: remove them and claim in one write. */
  | { readonly state: 'Reclaim'; readonly expired: DocMember[] }
  | { readonly state: 'Full' }
  /** The item shows nothing in the way (cannot happen with ALL_OLD; retried if it does). */
  | { readonly state: 'Retry' };

export type ClaimResult = Claimed | ClaimFailure | { readonly state: 'Contention'; readonly cause: unknown };

/** A re-key: applied, refused for the room's build, or the member changed since the read (`Gone`: claim again). */
export type ReissueResult = 'Reissued' | 'Gone' | Extract<ClaimFailure, { state: 'Mismatch' }>;

export type ConfirmResult =
  | { readonly state: 'Confirmed'; readonly member: Member }
  /** The request that used the key, delivered again: answer as then. */
  | { readonly state: 'AlreadyConfirmed'; readonly member: Member }
  | { readonly state: 'Rejected'; readonly reason: 'unknown-key' | 'expired' | 'used' }
  /**
   * The member joined with a build (`v`) that is not the room's server's, and the room checks
   * builds: refused, and the member removed (its slot freed) while it still holds that key.
   */
  | { readonly state: 'Mismatch'; readonly account: string; readonly client: string; readonly server: StoredProtocol };

export type AbandonResult = 'Reverted' | 'NothingToUndo';
export type LeaveResult = { readonly state: 'Left' } | { readonly state: 'Rejected' };

/** What a create makes of the standby room it takes: everything that is the creator's. */
export interface HandOver {
  readonly owner: string;
  readonly settings: Room['settings'];
  readonly maxPlayers: number;
  /** The create's instant: the room's lifetime and the creator's reservation count from it. */
  readonly createdAt: string;
  readonly template: Room['template'];
  readonly constants: NonNullable<Room['constants']>;
  readonly properties: NonNullable<Room['properties']>;
  readonly members: Readonly<Record<string, StoredMember>>;
  /** The room's first arbiter: its game server, epoch 1. */
  readonly host: RoomHost;
  /**
   * The creator's build (set hash), when it sent one and the check is on: only a standby server
   * of that build, or one that reported none, is taken (`protocolAccepts`). Not written.
   */
  readonly protocol?: string;
}

/** Where a room is offered: the index keys `keys.roomIndexes` makes of it (core/infra/keys.ts). */
export interface RoomListing {
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
  readonly createdAt: string;
  readonly roomId: string;
  readonly bucket?: string;
  readonly standby?: true;
}

/** Outcome of a conditional state change: the room as written, or as it stood in the way. */
export type TransitionResult =
  { readonly applied: true; readonly room: Room } | { readonly applied: false; readonly room?: Room };

/**
 * A heartbeat: applied, the room and its document as the write left them (`doc` undefined when
 * the document does not parse: the room is then judged by what the room fields say alone); or
 * refused (the room ended), the room as it stood.
 */
export type HeartbeatResult =
  | { readonly applied: true; readonly room: Room; readonly doc?: SessionDocument }
  | { readonly applied: false; readonly room?: Room };

/** A session write (PATCH): applied (the document as it now is), or refused (as it stood). */
export type SessionWriteResult =
  { readonly applied: true; readonly read: SessionRead } | { readonly applied: false; readonly current?: SessionRead };

/**
 * One conditional write to a room, as a use case asks for it: the conditions it needs (named
 * in core/rooms/room-conditions.ts) and what it changes. The store adds what every write
 * does: the room must exist, the change number goes up by one, `updatedAt` becomes `now`,
 * and a write that `ends` the room sets its `ttl` and takes it out of every index.
 */
export interface RoomWrite {
  readonly condition?: Condition;
  readonly change: Change;
  readonly now: Date;
  /** The room is failed or closed by this write: no lookup may offer it again. */
  readonly ends?: boolean;
  /** A heartbeat: nothing a reader compares changes, so no change number and no `updatedAt`. */
  readonly quiet?: boolean;
  /** The room is offered (again) where this listing says: its index keys are written. */
  readonly lists?: RoomListing;
  /** Index partitions the room leaves (a taken standby server leaves gsi1's `STANDBY#…`). */
  readonly unlists?: readonly RoomIndex[];
}

/** The table's indexes a room may be listed in (core/infra/keys.ts). */
type RoomIndex = 'gsi1' | 'gsi2' | 'gsi3';

/**
 * THE writer of `ROOM#` items (the room aggregate: the room and its session document). Use
 * cases take this port; `dynamoRoomStore` (core/rooms/dynamo-room-store.ts) runs it on the
 * table, the unit tests' fake (test/helpers/fakes/rooms.ts) in a Map, and both pass the same
 * contract (test/helpers/contracts/room-store.ts).
 */
export interface RoomStore {
  /**
   * Writes a new room, with its creator's reservation in it (and its party's, the creator's
   * first, when the creator brought one), in one conditional put.
   *
   * @throws RoomAlreadyExistsError, SessionDocumentFullError, SessionMemberTooLargeError
   */
  createWithMember(room: Room, member?: NewMember | readonly NewMember[]): Promise<void>;
  /** Strongly consistent. @throws RoomNotFoundError */
  get(roomId: string): Promise<Room>;
  find(roomId: string): Promise<Room | undefined>;
  /** Where the server runs. Any state: a fast server may call `inited` before the spawner returns. */
  recordPlacement(roomId: string, placement: Placement, now: Date): Promise<TransitionResult>;
  /**
   * roomIsSpawning AND spawnDeadlineAhead → ready, with the address players reach (and the
   * server's build, `protocol`, when it reported one).
   */
  markReady(
    roomId: string,
    change: { settings?: RoomSettings; protocol?: StoredProtocol; initedBy: string; address: string; now: Date },
  ): Promise<TransitionResult>;
  /**
   * The game's `update_settings`: roomIsLive AND (no arbiter OR hostEpochIs(epoch)) → the
   * room's settings replaced (a change, like every write). `not-live`: the room ended (or is
   * gone); `replaced`: the room moved on to a replacement of the server of `epoch`.
   */
  updateSettings(
    roomId: string,
    settings: RoomSettings,
    fence: { epoch: number; now: Date },
  ): Promise<'updated' | 'not-live' | 'replaced'>;
  /** roomIsLive → failed (ends the room). */
  markFailed(roomId: string, reason: RoomFailureReason, now: Date): Promise<TransitionResult>;
  /**
   * A `migrateHost` dedicated room whose server died, as read, moves to a replacement server:
   * the one conditional write of core/rooms/replacement.ts (`replacementWrite`). Not applied
   * when the room is not replaceable, or changed since the read (the caller reads again).
   */
  replaceServer(read: SessionRead, replacement: Replacement): Promise<TransitionResult>;
  /** roomIsReady (AND unchangedSince, if given) → closed (ends the room). */
  markClosed(roomId: string, now: Date, unchangedSince?: { changeNumber: number }): Promise<TransitionResult>;
  /** roomIsLive → closed with failureReason `closed-by-admin` (ends the room): an operator's close. */
  closeByAdmin(roomId: string, now: Date): Promise<TransitionResult>;
  /**
   * roomIsLive: keeps a live room from being swept; never revives a dead one. `epoch`: the
   * sending server's; refused once the room moved on to a replacement (a room without an
   * arbiter has no epoch to judge). Answers with the
   * room and its document as written, so the consumer judges its cost bounds without a read.
   */
  recordHeartbeat(roomId: string, now: Date, epoch?: number): Promise<HeartbeatResult>;
  /** A session PATCH (core/rooms/patch-conditions.ts builds it); the whole document back. */
  writeSession(roomId: string, write: RoomWrite): Promise<SessionWriteResult>;
  /** Deletes a session that is over, IF it is still unchangedSince this change number. */
  endSession(roomId: string, changeNumber: number): Promise<boolean>;

  // --- members (the session document) ---------------------------------------------------

  /**
   * One strongly consistent read of the room and its whole document. A large session's
   * document holds no members: with `account`, it holds that account's own (one more GetItem).
   */
  read(roomId: string, account?: string): Promise<SessionRead | undefined>;
  /** A large session's members, each its own item (core/rooms/large-members.ts). */
  readonly large: LargeSessionStore;
  listMembers(roomId: string): Promise<Member[]>;
  findMember(roomId: string, account: string): Promise<Member | undefined>;
  /**
   * The join's one request: its claim, answered with only what it updated; a refusal is told
   * apart on the item as it stood (no read). Busy DynamoDB answers `Contention` (retried by
   * the join within its deadline). `now`: epoch ms.
   *
   * @throws SessionMemberTooLargeError, SessionDocumentFullError
   */
  claim(roomId: string, spec: ClaimSpec, now: number): Promise<ClaimResult>;
  /** Removes exactly these expired members and claims, in one write. */
  reclaimAndClaim(
    roomId: string,
    spec: ClaimSpec & { expired: readonly DocMember[]; maxPlayers: number },
    now: number,
  ): Promise<ClaimResult>;
  /**
   * A member joining again keeps its slot with a fresh key, and the build it joins with
   * (core/rooms/member-writes.ts). `Mismatch`: the room's server is of another build.
   */
  reissueKey(roomId: string, change: ReissueChange): Promise<ReissueResult>;
  /** Undoes a claim the account checks refused after it was written; anything that changed since wins. */
  undoClaim(
    roomId: string,
    undo: { account: string; keyHash: string; previousKeyHash?: string; previousBuild?: string; reissued: boolean },
    now: Date,
  ): Promise<void>;
  /**
   * Frees the slots of members whose time ran out before `now` (lazy expiry: no timer, no
   * TTL), each only while it is as it was read. How many it freed. `read`: one already in hand.
   */
  reclaimExpired(roomId: string, now: Date, read?: SessionRead): Promise<number>;
  /**
   * `joined`: the key's member reserved → active, once. Only the request that used the key,
   * delivered again, gets the first answer back; any other request is rejected and writes nothing.
   */
  confirm(read: SessionRead, keyHashHex: string, requestId: string, now: Date): Promise<ConfirmResult>;
  /** Undoes the confirmation `requestId` made with this key (the game never got its answer). */
  abandon(roomId: string, keyHashHex: string, requestId: string, now: Date): Promise<AbandonResult>;
  /** Frees the key holder's slot at once (the game's `left`). A redelivery gets the same answer. */
  leave(roomId: string, keyHashHex: string, requestId: string, now: Date): Promise<LeaveResult>;
  /** The player's own cancel or leave (`DELETE …/members/me`): only ever their own slot. */
  leaveAsPlayer(roomId: string, account: string, now: Date): Promise<boolean>;
  /**
   * A write of the room (with what every write adds) and of other items (`alongside`: the
   * invited accounts' invites items, core/invites/invite-store.ts) in ONE transaction, all or
   * none: the room store stays the one writer of room items, the other items' owner builds
   * their part.
   */
  transactWrite(roomId: string, write: RoomWrite, alongside: readonly ItemWrite[]): Promise<TransactOutcome>;

  // --- the warm pool ----------------------------------------------------------------------

  /**
   * Hands the standby server `roomId` over to a create: roomIsStandby AND roomIsReady → the
   * creator's room, listed where `listing` says and out of the standby index, answered with
   * its whole document. Undefined when it ended, or another create took it, since it was read.
   */
  handOver(
    roomId: string,
    listing: Omit<RoomListing, 'roomId' | 'createdAt' | 'standby'>,
    handOver: HandOver,
  ): Promise<SessionRead | undefined>;
  /**
   * Lists a live standby room in the standby index, where creates find it: roomIsStandby AND
   * roomIsLive AND notInGsi1 → its `STANDBY#…` keys, nothing else (no change number: nothing a
   * reader compares changes). For standby rooms a previous release started unlisted. False
   * when it was taken, ended or listed meanwhile.
   */
  listStandby(listing: Omit<RoomListing, 'standby' | 'bucket'>, now: Date): Promise<boolean>;

  // --- live sockets (lambdas/live/socket.ts) ---------------------------------------------

  /**
   * A socket of `account` to the room is heard (subscribe, ping): when `account` is the room's
   * host, its sign of life (`host.s`, quiet: core/rooms/host.ts `hostSeenWrite`); a disconnect
   * it recorded (`members.<account>.d`) is cleared, a change (core/rooms/presence.ts).
   */
  noteSocketAlive(roomId: string, account: string, now: Date, heard?: SocketHeard): Promise<void>;
  /**
   * The last socket of `account` to the room closed: an active member of a live room whose
   * template sets `disconnectedMs` records when (core/rooms/presence.ts). Nothing otherwise.
   */
  noteSocketLost(roomId: string, account: string, now: Date): Promise<void>;
}

/**
 * Which of a heard socket's writes may apply: `host`, the account may be the room's host (a
 * ping cannot know: it says so whenever the socket follows the room); `returning`, the member
 * recorded a disconnect. Default: both.
 */
export interface SocketHeard {
  readonly host: boolean;
  readonly returning: boolean;
}

/** Outcome of one conditional write of a room item. */
export type ItemWriteResult =
  { readonly applied: true; readonly item: Item } | { readonly applied: false; readonly item?: Item };

/**
 * Where room items are kept: the table, or a Map. Only core/rooms/rooms.ts calls it, so every
 * write goes through the one place that adds the change number, `updatedAt` and the index
 * removal.
 */
export interface RoomItems {
  /** Strongly consistent. */
  get(roomId: string): Promise<Item | undefined>;
  /** Writes a new room item unless one exists under its key: undefined, or the item in the way. */
  putNew(item: Item): Promise<Item | undefined>;
  /**
   * `answer`: `all`, the whole item after the write; `updated`, only the attributes it wrote
   * (`UPDATED_NEW`: the join's small answer). A refusal always hands back the item in the way.
   */
  update(roomId: string, condition: Condition, change: Change, answer?: 'all' | 'updated'): Promise<ItemWriteResult>;
  delete(roomId: string, condition: Condition): Promise<boolean>;
  /**
   * The room's conditional update and the `alongside` items' in ONE transaction: all or none.
   * A refusal says whose condition failed, not the items as they stood.
   */
  transact(
    roomId: string,
    condition: Condition,
    change: Change,
    alongside: readonly ItemWrite[],
  ): Promise<TransactOutcome>;
}

/**
 * A conditional update of another item of the table, written in the same transaction as a
 * room's (`RoomStore.transactWrite`): its key, condition and change as data, so the table and
 * the in-memory store judge it alike (core/rooms/room-expression.ts).
 */
export interface ItemWrite {
  readonly key: ItemKey;
  readonly condition: Condition;
  readonly change: Change;
}

/** Outcome of a room write made in one transaction with other items. */
export type TransactOutcome =
  | { readonly state: 'Written' }
  /** A condition refused it: the room's (`'room'`), or that of `alongside[at]`. Nothing was written. */
  | { readonly state: 'Refused'; readonly at: 'room' | number }
  /** Another transaction held one of the items, or DynamoDB throttled or timed out: nothing was written. */
  | { readonly state: 'Contention'; readonly cause: unknown };

/** A claim into a large room: the join's claim, and the room's size and clock (the join has the room). */
export type LargeClaim = Omit<ClaimSpec, 'maxPlayers'> & {
  readonly maxPlayers: number;
  readonly room: RoomClock & {
    readonly spawnDeadline?: string;
    /** With `bounds`, how long its member items are kept (core/rooms/large-members.ts `memberTtlS`). */
    readonly createdAt?: string;
    readonly bounds?: RoomBounds;
  };
};

/** One seat of a claim to undo: its member by the key the claim gave it. */
export interface LargeUndo {
  readonly account: string;
  readonly keyHash: string;
  readonly previousKeyHash?: string;
  readonly previousBuild?: string;
  readonly reissued: boolean;
}

/** What the join and the members listing use of a large session (`RoomStore.large`). */
export interface LargeSessionStore {
  claim(roomId: string, claim: LargeClaim, now: number): Promise<ClaimResult>;
  reissueKey(roomId: string, change: ReissueChange): Promise<ReissueResult>;
  /** Undoes every seat of one claim, each member by its key, in one transaction. */
  undoClaims(roomId: string, undos: readonly LargeUndo[], now: Date): Promise<void>;
  /** One page of live members in account order; `after`: the last account of the page before. */
  page(
    roomId: string,
    room: RoomClock,
    now: number,
    after?: string,
  ): Promise<{ members: { account: string; member: StoredMember }[]; last?: string }>;
}
