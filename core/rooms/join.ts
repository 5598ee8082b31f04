import { DependencyUnavailableError } from '../errors';
import type { AccountChecks } from '../abuse/guard';
import { cryptoRandom, jitteredBackoffMs, joinContentionBackoff } from '../infra/clock';
import { classifyDependencyError } from '../infra/dependency-errors';
import type { PlatformCache } from '../infra/platform-cache';
import { generateRegistrationKey } from './registration-keys';
import { playerAddress, unknownHost } from '../gameservers/server-address';
import type { Reservation } from './member';
import { expiryOf, newMemberNumber, newReservation, storedHashOfKey, type StoredMember } from './document';
import { constantsOf } from './session-model';
import { joinWritesFor } from './large-members';
import type { ClaimResult, ClaimSpec, HeldSlot, SessionRead, RoomStore } from './room-store';
import { RoomNotFoundError } from './errors';
import { PartyMemberRefusedError, RoomFullError, RoomNotJoinableError } from './join-errors';
import { AbuseRateLimitedError, AccountBannedError } from '../abuse/errors';
import { causeOfSilence, type HeartbeatPipeline } from './heartbeat-evidence';
import { heartbeatCutoff, heartbeatDefaults } from './liveness';
import { isLive, type Room } from './model';
import { mismatchError, sameBuild, type ProtocolMismatchError } from '../versions/errors';
import { tellServerOfMismatch, type NoticeDelivery } from '../versions/notice';
import type { Protocol, StoredProtocol } from '../versions/protocol';
import type { ProtocolComponents } from '../versions/protocol-store';

export interface JoinRoomCommand {
  readonly roomId: string;
  readonly account: string;
  readonly scopes: readonly string[];
  /**
   * The client's build (docs/versions.md): the claim joins only a room whose server is of the
   * same build, reported none, or was made with the check off. Absent: any room.
   */
  readonly protocol?: Protocol;
  /** Matchmaking's criteria: the claim joins only while the room's settings still hold them. */
  readonly criteria?: Readonly<Record<string, unknown>>;
  /**
   * The other members of the caller's party, each proven by the caller (lambdas/http/party.ts):
   * all of them are seated with the caller by one write, or none. They share the caller's build.
   */
  readonly party?: readonly PartyMember[];
}

/** A party member the caller brings: its account, and the scopes its member entry carries. */
export interface PartyMember {
  readonly account: string;
  readonly scopes: readonly string[];
}

export interface JoinRoomDependencies {
  readonly sessions: Pick<RoomStore, 'read' | 'claim' | 'reclaimAndClaim' | 'reissueKey' | 'undoClaim'> &
    Partial<Pick<RoomStore, 'large'>>;
  /**
   * The process's cache (Platform's): a settled room's constants (`roomConstants`), so a join
   * needs no read, and the shared read of a room not settled yet (`unsettledRoom`).
   */
  readonly cache: PlatformCache;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
  /** When to stop waiting for a spawning room and answer with the reservation anyway; also the claim's deadline. */
  readonly answerBy: Date;
  /** A ready room not heard from for this long takes no joins (its server is presumed dead). */
  readonly heartbeatTimeoutS: number;
  /** How often sidecars report. @default heartbeatDefaults.intervalS */
  readonly heartbeatIntervalS?: number;
  /**
   * What the platform knows about its own heartbeat pipeline (core/rooms/sweeper-state-store.ts),
   * read only when a room is found silent: a silence the platform may have caused (a stall)
   * is answered 503 UNAVAILABLE with Retry-After, a dead server's 409 NOT_JOINABLE. Absent: every
   * silence is the room's (matchmaking, which moves on to another room either way).
   */
  readonly heartbeatPipeline?: () => Promise<HeartbeatPipeline>;
  /**
   * The account checks (ban, rate limit; core/abuse/guard.ts `checks`). A refusal this process
   * knows already is answered before anything is written. The rest run BESIDE the claim, so
   * they add no round trip; if they refuse, the claim is undone (exactly that member, by its
   * key) and their error is the answer.
   */
  readonly accountChecks?: AccountChecks;
  /**
   * A party member's account checks, run as the caller's are (beside the claim). A refusal
   * undoes the whole party's claim and names the member (`PartyMemberRefusedError`).
   */
  readonly partyChecks?: (account: string) => AccountChecks;
  /**
   * How a refused build is explained (the server's components, read on that failure only) and
   * told to the room's game server. Absent: the refusal names no components and tells nobody.
   */
  readonly versions?: {
    readonly components: Pick<ProtocolComponents, 'componentsOf'>;
    /** Absent: the caller tells the server itself, if it answers the refusal (matchmaking). */
    readonly deliver?: NoticeDelivery;
  };
}

export interface JoinRoomResult {
  readonly room: Room;
  readonly reservation: Reservation;
  /** Every member's reservation, the caller's first: only for a join that brought a party. */
  readonly reservations?: readonly PartyReservation[];
  /** The room was still spawning when the answer was due (202). */
  readonly spawning: boolean;
}

export type PartyReservation = Reservation & { readonly account: string };

/** What the claim wrote for one account, so it can be answered, or undone. */
interface ClaimedSeat {
  readonly account: string;
  readonly key: string;
  readonly member: StoredMember;
  readonly keyHash: string;
  /** The slot was the account's already: only its key and build changed (`member` as it was before). */
  readonly reissued: boolean;
  readonly previousKeyHash?: string;
}

/** What the claim wrote: the room as it answered, and every seat, the caller's first. */
interface ClaimedSlots {
  readonly room: Room;
  readonly seats: readonly ClaimedSeat[];
}

const backoff = (attempt: number) => jitteredBackoffMs(attempt, joinContentionBackoff, cryptoRandom);

/**
 * Puts a player into a named room with ONE conditional write on its session document, the
 * account checks running beside it:
 *
 *   account refused, as this process knows? ─ yes ► their error (nothing written)
 *   claim (UpdateItem) ─ Claimed ─────────────────────► reservation (new key)
 *     ∥ account checks  ├ AlreadyMember ──► re-key ────► same slot, fresh key
 *     (ban read, rate   ├ Reclaim ─► remove exactly the expired + claim (one write)
 *      log write)       ├ Full ────────────────────────► ROOM_FULL (no live slot free)
 *                       ├ NotJoinable ─────────────────► NOT_JOINABLE
 *                       ├ Silent ─► the room's own silence? ─ yes ► NOT_JOINABLE
 *                       │                                    └ no ─► 503 UNAVAILABLE, Retry-After
 *                       └ Contention ─► retry with jitter until `answerBy`, then 503 UNAVAILABLE
 *   checks refused? undo exactly this claim (member by its key) ► their error
 *   spawning room? wait for `inited` until `answerBy` (failed meanwhile → NOT_JOINABLE)
 *
 * ROOM_FULL only ever comes from a failed condition whose `ALL_OLD` shows every slot held by a
 * live member; contention never turns into ROOM_FULL. A slot claimed by a join its checks then
 * refuse is held for that one round trip: the refusal of a full rate log is remembered until
 * the log can admit again, so an account that keeps hammering is refused before it claims.
 */
export async function joinRoom(command: JoinRoomCommand, deps: JoinRoomDependencies): Promise<JoinRoomResult> {
  const checks = accountChecksOf(command, deps);
  if (checks.length === 0) return answer(await claimSlots(command, deps), command, deps);
  await Promise.all(
    checks.map(({ account, run }) => run.known().catch((error: unknown) => refusal(error, account, command))),
  );
  // Settled into a result, so an early refusal never goes unhandled while the claim runs.
  const verdict: Promise<unknown> = Promise.all(
    checks.map(({ account, run }) =>
      patiently(run.decide, deps).catch((error: unknown) => refusal(error, account, command)),
    ),
  ).then(
    () => undefined,
    (error: unknown) => error ?? new Error('refused'),
  );
  let claimed: ClaimedSlots;
  try {
    claimed = await claimSlots(command, deps);
  } catch (error) {
    throw (await verdict) ?? error;
  }
  const refused = await verdict;
  if (refused) {
    await undo(command, claimed, deps);
    throw refused;
  }
  return answer(claimed, command, deps);
}

/** Whose account checks run beside the claim: the caller's, and each party member's. */
function accountChecksOf(
  command: JoinRoomCommand,
  deps: JoinRoomDependencies,
): { readonly account: string; readonly run: AccountChecks }[] {
  const caller = deps.accountChecks ? [{ account: command.account, run: deps.accountChecks }] : [];
  const partyChecks = deps.partyChecks;
  if (!partyChecks) return caller;
  return [...caller, ...(command.party ?? []).map(({ account }) => ({ account, run: partyChecks(account) }))];
}

/** A party member's refusal names the member; the caller's own is answered as it is. */
function refusal(error: unknown, account: string, command: JoinRoomCommand): never {
  if (account !== command.account && (error instanceof AccountBannedError || error instanceof AbuseRateLimitedError)) {
    throw new PartyMemberRefusedError(account, error);
  }
  throw error;
}

/**
 * Undoes exactly this claim, every seat of it (each member by its key). A failed undo leaves a
 * reservation whose key nobody was given: it expires by itself.
 */
async function undo(command: JoinRoomCommand, claimed: ClaimedSlots, deps: JoinRoomDependencies): Promise<void> {
  const undos = claimed.seats.map((seat) => ({
    account: seat.account,
    keyHash: seat.keyHash,
    reissued: seat.reissued,
    ...(seat.previousKeyHash === undefined ? {} : { previousKeyHash: seat.previousKeyHash }),
    ...(seat.reissued && seat.member.v !== undefined ? { previousBuild: seat.member.v } : {}),
  }));
  await joinWritesFor(claimed.room, deps.sessions)
    .undoClaims(command.roomId, undos, deps.now())
    .catch(() => undefined);
}

/** Whether a room's cached copy holds everything a join's answer needs, for good. */
function isSettled(room: Room): boolean {
  // A peer-hosted session never gets a placement: it is settled once it exists.
  if (room.hosting === 'peerHosted') return room.state !== 'spawning';
  // A dedicated room that outlives its server moves to another one (core/rooms/replacement.ts):
  // its state, address and ports are never settled for good.
  if (constantsOf(room).migrateHost === true) return false;
  return room.state !== 'spawning' && room.placement !== undefined;
}

/**
 * The room as a claim needs it: its constants, and whether it still spawns (a reservation in a
 * spawning room waits for `inited`). A settled room is immutable in what a join reads, so it
 * comes from the cache; another is read, that read shared by this process's joins for 50 ms.
 */
async function roomToClaim(roomId: string, deps: JoinRoomDependencies): Promise<Room> {
  const settled = await deps.cache.peek<Room>('roomConstants', roomId);
  if (settled) return settled;
  const read = await deps.cache.read('unsettledRoom', roomId, () => readPatiently(roomId, deps));
  if (!read) throw new RoomNotFoundError(roomId);
  if (isSettled(read.room)) deps.cache.remember('roomConstants', roomId, read.room);
  return read.room;
}

/** The seats a claim asks for: each account's fresh key and member number, drawn once. */
interface Seat {
  readonly account: string;
  readonly scopes: readonly string[];
  readonly key: string;
  readonly keyHash: string;
  readonly memberNumber: number;
}

function seatsOf(command: JoinRoomCommand): Seat[] {
  const accounts = [{ account: command.account, scopes: command.scopes }, ...(command.party ?? [])];
  return accounts.map(({ account, scopes }) => {
    const key = generateRegistrationKey();
    // Drawn once: a retried claim writes the member number the answer was built with.
    return { account, scopes, key, keyHash: storedHashOfKey(key), memberNumber: newMemberNumber() };
  });
}

async function claimSlots(command: JoinRoomCommand, deps: JoinRoomDependencies): Promise<ClaimedSlots> {
  const room = await roomToClaim(command.roomId, deps);
  const constants = constantsOf(room);
  // Visibility (the template's, fixed) and joinability (the members', changeable) both refuse
  // joins with the same code: the sentence says which one did, in the words the room view uses.
  if (constants.visibility !== 'open') {
    throw new RoomNotJoinableError(
      room.roomId,
      `its visibility is ${constants.visibility} (only an open session takes joins, whatever its joinability)`,
    );
  }
  const seats = seatsOf(command);
  let held: Readonly<Record<string, HeldSlot>> | undefined;
  const spec = (now: Date): ClaimSpec => ({
    members: seats.map((seat) => ({
      account: seat.account,
      keyHash: seat.keyHash,
      member: newReservation(room, now.getTime(), constants.timeouts, seat.scopes, seat.memberNumber),
    })),
    ...(held === undefined ? {} : { held }),
    ...(seats.length === 1 ? {} : { maxPlayers: room.maxPlayers }),
    heartbeatSince: heartbeatCutoff(now, deps.heartbeatTimeoutS),
    ...(command.protocol === undefined ? {} : { protocol: command.protocol.hash }),
    ...(command.criteria === undefined ? {} : { criteria: command.criteria }),
  });
  let now = deps.now();
  let outcome: ClaimResult = await joinWritesFor(room, deps.sessions).claim(room.roomId, spec(now), now.getTime());
  for (let attempt = 0; ; attempt++) {
    switch (outcome.state) {
      case 'Claimed':
        return { room: claimedRoom(room, outcome), seats: claimedSeats(seats, spec(now), held) };
      case 'AlreadyMember': {
        const [seat] = seats as [Seat];
        // Our own claim, applied although its answer was lost (a timeout): the slot is ours.
        if (outcome.keyHash === seat.keyHash) {
          return { room, seats: [{ ...seat, reissued: false, member: outcome.member }] };
        }
        const rekeyed = await rekey(room, command, outcome, seat, now, deps);
        if (rekeyed) return { room, seats: [rekeyed] };
        break;
      }
      case 'Replan': {
        const live = outcome.held;
        // Our own party claim, applied although its answer was lost: every seat is ours.
        if (seats.every((seat) => live[seat.account]?.keyHash === seat.keyHash)) {
          return {
            room,
            seats: seats.map((seat) => ({ ...seat, reissued: false, member: live[seat.account]!.member })),
          };
        }
        held = live;
        break;
      }
      case 'Reclaim':
        // A reclaim that lost a race is tried again after a pause, as a claim is.
        if (attempt > 0) await deps.sleep(backoff(attempt));
        pastDeadline(deps, room.roomId);
        now = deps.now();
        outcome = await deps.sessions.reclaimAndClaim(
          room.roomId,
          { ...spec(now), expired: outcome.expired, maxPlayers: room.maxPlayers },
          now.getTime(),
        );
        continue;
      case 'Retry':
      case 'Contention':
        await deps.sleep(backoff(attempt));
        break;
      default:
        throw await claimRefusal(outcome, room, command, deps);
    }
    pastDeadline(deps, room.roomId);
    now = deps.now();
    outcome = await joinWritesFor(room, deps.sessions).claim(room.roomId, spec(now), now.getTime());
  }
}

/** The room as the claim's write answered it (only what it updated, echoed). */
function claimedRoom(room: Room, outcome: Extract<ClaimResult, { state: 'Claimed' }>): Room {
  return {
    ...room,
    state: outcome.roomState,
    players: outcome.players,
    changeNumber: outcome.changeNumber,
    ...(outcome.settings === undefined ? {} : { settings: outcome.settings }),
  };
}

/** What the applied claim wrote for each seat: a held one kept its member, re-keyed. */
function claimedSeats(
  seats: readonly Seat[],
  spec: ClaimSpec,
  held: Readonly<Record<string, HeldSlot>> | undefined,
): ClaimedSeat[] {
  return seats.map((seat, i) => {
    const kept = held?.[seat.account];
    if (!kept) return { ...seat, reissued: false, member: spec.members[i]!.member };
    return {
      ...seat,
      reissued: true,
      member: kept.member,
      ...(kept.keyHash === undefined ? {} : { previousKeyHash: kept.keyHash }),
    };
  });
}

/** The error a claim's final refusal answers with. */
async function claimRefusal(
  outcome: Extract<ClaimResult, { state: 'NotFound' | 'NotJoinable' | 'NotMatching' | 'Mismatch' | 'Silent' | 'Full' }>,
  room: Room,
  command: JoinRoomCommand,
  deps: JoinRoomDependencies,
): Promise<Error> {
  switch (outcome.state) {
    case 'NotFound':
      return new RoomNotFoundError(room.roomId);
    case 'NotJoinable':
      return new RoomNotJoinableError(room.roomId, outcome.reason);
    case 'NotMatching':
      return new RoomNotJoinableError(room.roomId, 'its settings no longer match the criteria');
    case 'Mismatch':
      return refuseBuild(outcome.room, command, outcome.server, deps);
    case 'Silent':
      return silenceError(room.roomId, deps);
    case 'Full':
      return new RoomFullError(room.roomId);
  }
}

/**
 * The account holds a live slot already: it keeps it with the new key and the build this join
 * sent, unless it changed meanwhile (undefined: claim again) or the room's server is of another
 * build (refused as a claim would be).
 */
async function rekey(
  room: Room,
  command: JoinRoomCommand,
  held: Extract<ClaimResult, { state: 'AlreadyMember' }>,
  fresh: Seat,
  now: Date,
  deps: JoinRoomDependencies,
): Promise<ClaimedSeat | undefined> {
  const reissued = await joinWritesFor(room, deps.sessions).reissueKey(room.roomId, {
    account: command.account,
    member: held.member,
    newKeyHash: fresh.keyHash,
    now: now.getTime(),
    ...(held.keyHash === undefined ? {} : { oldKeyHash: held.keyHash }),
    ...(command.protocol === undefined ? {} : { protocol: command.protocol.hash }),
  });
  if (reissued === 'Gone') return undefined;
  if (reissued !== 'Reissued') throw await refuseBuild(reissued.room, command, reissued.server, deps);
  return {
    ...fresh,
    reissued: true,
    member: held.member,
    ...(held.keyHash === undefined ? {} : { previousKeyHash: held.keyHash }),
  };
}

/**
 * The answer to a join that found a ready room silent for a whole heartbeat timeout. Final
 * (NOT_JOINABLE) only when the platform has been hearing heartbeats all along: after a stall
 * of the platform (DynamoDB, the consumer) every room looks silent for a while although its
 * server runs, and a client that took that as final would give up on a healthy room.
 */
async function silenceError(
  roomId: string,
  deps: JoinRoomDependencies,
): Promise<RoomNotJoinableError | RoomNotFoundError | DependencyUnavailableError> {
  const silent = () =>
    new RoomNotJoinableError(roomId, `its game server has not been heard from for ${deps.heartbeatTimeoutS} s`);
  if (!deps.heartbeatPipeline) return silent();
  let verdict: ReturnType<typeof causeOfSilence>;
  try {
    const [read, pipeline] = await Promise.all([deps.sessions.read(roomId), deps.heartbeatPipeline()]);
    if (!read) return new RoomNotFoundError(roomId);
    if (!isLive(read.room.state)) return new RoomNotJoinableError(roomId, `the room is ${read.room.state}`);
    if (read.room.lastHeartbeatAt === undefined) return silent();
    verdict = causeOfSilence(deps.now(), read.room.lastHeartbeatAt, pipeline, {
      heartbeatTimeoutS: deps.heartbeatTimeoutS,
      heartbeatIntervalS: deps.heartbeatIntervalS ?? heartbeatDefaults.intervalS,
    });
  } catch (error) {
    // Cannot tell whose silence it is: the careful answer is the one a client retries.
    return new DependencyUnavailableError(
      `Room '${roomId}' has not been heard from lately and the platform cannot tell why; try again.`,
      {
        retryAfterS: deps.heartbeatIntervalS ?? heartbeatDefaults.intervalS,
        cause: error,
        details: { roomId, reason: 'not-heard-from' },
      },
    );
  }
  if (verdict.cause === 'room') return silent();
  return new DependencyUnavailableError(
    `Room '${roomId}' has not been heard from lately, but neither has the platform heard everything it should ` +
      `(${verdict.why}); try again in ${verdict.retryAfterS} s.`,
    { retryAfterS: verdict.retryAfterS, details: { roomId, reason: 'not-heard-from' } },
  );
}

/** A read is safe to repeat: a slow or throttled DynamoDB is retried until the join's deadline. */
function readPatiently(roomId: string, deps: JoinRoomDependencies): Promise<SessionRead | undefined> {
  return patiently(() => deps.sessions.read(roomId), deps);
}

/**
 * Repeats a call a slow or throttled DynamoDB did not answer, until the join's deadline. Used
 * for reads and for the account checks: a rate-limit write that timed out but was applied is
 * then counted twice, which errs on the strict side.
 */
async function patiently<T>(call: () => Promise<T>, deps: JoinRoomDependencies): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await call();
    } catch (error) {
      const kind = classifyDependencyError(error)?.kind;
      if ((kind !== 'timeout' && kind !== 'throttled') || deps.now().getTime() >= deps.answerBy.getTime()) throw error;
      await deps.sleep(backoff(attempt));
    }
  }
}

/** Out of time while the room kept changing under us: not full, just busy. */
function pastDeadline(deps: JoinRoomDependencies, roomId: string): void {
  if (deps.now().getTime() < deps.answerBy.getTime()) return;
  throw new DependencyUnavailableError(`Room '${roomId}' is too busy to claim a slot right now; try again.`, {
    retryAfterS: 1,
    details: { roomId },
  });
}

/**
 * The refusal of the client's build by the room's server, told to that server when this join
 * answers it (a direct join); matchmaking tells it only if it answers the refusal. `room`: as
 * the refusing write (or the read after `inited`) found it, so the notice goes to the server of
 * its current epoch.
 */
async function refuseBuild(
  room: Room,
  command: JoinRoomCommand,
  server: StoredProtocol,
  deps: JoinRoomDependencies,
): Promise<ProtocolMismatchError> {
  const client = command.protocol!;
  const error = await mismatchError(room.roomId, client, server, deps.versions?.components, room);
  const deliver = deps.versions?.deliver;
  if (deliver)
    await tellServerOfMismatch(room, { account: command.account, client, error }, { deliver, now: deps.now });
  return error;
}

async function answer(
  claimed: ClaimedSlots,
  command: JoinRoomCommand,
  deps: JoinRoomDependencies,
): Promise<JoinRoomResult> {
  let current = claimed.room;
  if (current.state === 'spawning') {
    current = await waitWhileSpawning(current.roomId, deps);
    // Claimed while its server had reported no build: the build it reported at `inited` decides.
    if (
      current.state === 'ready' &&
      current.protocolCheck !== false &&
      !sameBuild(command.protocol?.hash, current.protocol)
    ) {
      await undo(command, claimed, deps);
      throw await refuseBuild(current, command, current.protocol!, deps);
    }
  } else if (!isSettled(current)) {
    const read = await deps.sessions.read(current.roomId);
    if (!read) throw new RoomNotFoundError(current.roomId);
    current = read.room;
  }
  if (isSettled(current)) deps.cache.remember('roomConstants', current.roomId, current);
  if (!isLive(current.state)) throw new RoomNotJoinableError(current.roomId, `the room is ${current.state}`);
  const reservations = claimed.seats.map((seat) => ({ account: seat.account, ...reservationOf(seat, current, deps) }));
  return {
    room: current,
    spawning: current.state === 'spawning',
    reservation: reservationOf(claimed.seats[0]!, current, deps),
    ...(command.party === undefined ? {} : { reservations }),
  };
}

function reservationOf(seat: ClaimedSeat, current: Room, deps: JoinRoomDependencies): Reservation {
  const placement = current.placement;
  const expiry =
    expiryOf(seat.member, current) ??
    // Still spawning: the latest it can expire. A member with no timeout: a reservation's length from now.
    (current.state === 'spawning' && seat.member.p !== undefined
      ? Date.parse(current.spawnDeadline) + seat.member.p
      : deps.now().getTime() + current.reservationTimeoutS * 1000);
  return {
    key: seat.key,
    // A peer-hosted session has no server: its reservations name no host or ports.
    ...(current.hosting === 'peerHosted'
      ? {}
      : {
          host: (current.state === 'ready' ? playerAddress(current) : undefined) ?? unknownHost,
          ports: placement?.ports ?? [],
        }),
    expiresAt: new Date(expiry).toISOString(),
  };
}

/**
 * Waits for a spawning room's `inited`. Every waiter of this process polls the same read
 * (`unsettledRoom`, at most one per 50 ms): a find-or-create stampede parks hundreds of players
 * on the few rooms being started, and each polling alone would send strongly consistent reads
 * of the same items by the thousand.
 */
async function waitWhileSpawning(roomId: string, deps: JoinRoomDependencies): Promise<Room> {
  let pause = 10;
  for (;;) {
    const read = await deps.cache.read('unsettledRoom', roomId, () => deps.sessions.read(roomId));
    if (!read) throw new RoomNotFoundError(roomId);
    const now = deps.now();
    if (read.room.state !== 'spawning' || now.getTime() >= deps.answerBy.getTime()) return read.room;
    await deps.sleep(pause);
    pause = Math.min(pause * 2, 100);
  }
}
