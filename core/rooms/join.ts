import { randomInt } from 'node:crypto';
import { DependencyUnavailableError } from '../errors';
import { classifyDependencyError } from '../infra/dependency-errors';
import { generateRegistrationKey } from '../reservations/keys';
import { playerAddress, unknownHost } from '../gameservers/server-address';
import type { Reservation } from '../reservations/model';
import { expiryOf, newReservation, storedHashOfKey, type StoredMember } from '../sessions/document';
import { roomConstants, RoomConstantsCache } from '../sessions/room-cache';
import { constantsOf } from '../sessions/model';
import type { ClaimResult, SessionRead, SessionStore } from '../sessions/store';
import { RoomNotFoundError } from './errors';
import { RoomFullError, RoomNotJoinableError } from './join-errors';
import { causeOfSilence, type HeartbeatPipeline } from './heartbeat-evidence';
import { heartbeatCutoff, heartbeatDefaults } from './liveness';
import { isLive, type Room } from './model';

export interface JoinRoomCommand {
  readonly roomId: string;
  readonly account: string;
  readonly scopes: readonly string[];
}

export interface JoinRoomDependencies {
  readonly sessions: Pick<
    SessionStore,
    'read' | 'claim' | 'reclaimAndClaim' | 'reissueKey' | 'undoClaim' | 'settleClaim'
  >;
  /** Immutable room facts kept in-process (defaults to the process-wide cache). */
  readonly cache?: RoomConstantsCache;
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
   * The account checks (ban, rate limit). Returns `undefined` when they decided from memory
   * (admitted; a refusal throws): the claim is then final. Returns a promise when they need
   * DynamoDB: they run BESIDE the claim, so they add no round trip; the claimed member is
   * marked provisional (`v`) so a concurrent join that finds the room full retries instead of
   * answering ROOM_FULL; if they refuse, the claim is undone (exactly that member, by its key)
   * and their error is the answer.
   */
  readonly admit?: () => Promise<void> | undefined;
  /** Reads of spawning rooms shared by this process's waiters (defaults to the process-wide one). */
  readonly spawningReads?: SharedRoomReads;
}

export interface JoinRoomResult {
  readonly room: Room;
  readonly reservation: Reservation;
  /** The room was still spawning when the answer was due (202). */
  readonly spawning: boolean;
}

/** What the claim wrote, so it can be answered, or undone. */
interface ClaimedSlot {
  readonly key: string;
  readonly room: Room;
  readonly member: StoredMember;
  readonly keyHash: string;
  /** The slot was the account's already: only its key changed. */
  readonly reissued: boolean;
  readonly previousKeyHash?: string;
}

/** Full jitter: a random pause up to an exponentially growing cap (contention only). */
function jitteredBackoff(attempt: number): number {
  return randomInt(1, 5 * 2 ** Math.min(attempt, 6) + 2);
}

/**
 * Puts a player into a named room with ONE conditional write on its session document:
 *
 *   claim (UpdateItem) ─ Claimed ─────────────────────► reservation (new key)
 *        │             ├ AlreadyMember ──► re-key ────► same slot, fresh key
 *        │             ├ Reclaim ─► remove exactly the expired + claim (one write)
 *        │             ├ Full ────────────────────────► ROOM_FULL (no live slot free)
 *        │             ├ Pending ─► full, but some members' account checks are still running:
 *        │             │            retry with jitter (a refused one's slot comes free)
 *        │             ├ NotJoinable ─────────────────► NOT_JOINABLE
 *        │             ├ Silent ─► the room's own silence? ─ yes ► NOT_JOINABLE
 *        │             │                                    └ no ─► 503 UNAVAILABLE, Retry-After
 *        │             └ Contention ─► retry with jitter until `answerBy`, then 503 UNAVAILABLE
 *   spawning room? wait for `inited` until `answerBy` (failed meanwhile → NOT_JOINABLE)
 *
 * ROOM_FULL only ever comes from a failed condition whose `ALL_OLD` shows every slot held by
 * a live member whose account checks have passed: neither contention nor a slot held for a
 * moment by a join that is about to be refused turns into ROOM_FULL.
 */
export async function joinRoom(command: JoinRoomCommand, deps: JoinRoomDependencies): Promise<JoinRoomResult> {
  // Decided from memory in the common case (a refusal throws here, before anything is written).
  let first = deps.admit?.();
  if (first === undefined) return answer(await claimSlot(command, deps, false), deps);
  // Settled into a result, so an early refusal never goes unhandled while the claim runs.
  const admission: Promise<unknown> = patiently(() => {
    const call = first ?? deps.admit?.() ?? Promise.resolve();
    first = undefined;
    return call;
  }, deps).then(
    () => undefined,
    (error: unknown) => error ?? new Error('refused'),
  );
  let claimed: ClaimedSlot;
  try {
    claimed = await claimSlot(command, deps, true);
  } catch (error) {
    throw (await admission) ?? error;
  }
  const refused = await admission;
  if (refused) {
    await deps.sessions.undoClaim(command.roomId, {
      account: command.account,
      keyHash: claimed.keyHash,
      reissued: claimed.reissued,
      ...(claimed.previousKeyHash === undefined ? {} : { previousKeyHash: claimed.previousKeyHash }),
    });
    throw refused;
  }
  // Admitted: the provisional mark goes, so racers that found the room full see a final member.
  // Best effort: the mark also lapses at the join's deadline by itself.
  if (!claimed.reissued) {
    await deps.sessions
      .settleClaim(command.roomId, { account: command.account, keyHash: claimed.keyHash })
      .catch(() => undefined);
  }
  return answer(claimed, deps);
}

/** `provisional`: the account checks are still running; the member says so until the join's deadline. */
async function claimSlot(
  command: JoinRoomCommand,
  deps: JoinRoomDependencies,
  provisional: boolean,
): Promise<ClaimedSlot> {
  const cache = deps.cache ?? roomConstants;
  let room = cache.get(command.roomId);
  if (!room || !RoomConstantsCache.settled(room)) {
    const read = await readOnce(command.roomId, deps);
    if (!read) throw new RoomNotFoundError(command.roomId);
    room = read.room;
    cache.remember(room);
  }
  const constants = constantsOf(room);
  // Visibility (the template's, fixed) and joinability (the members', changeable) both refuse
  // joins with the same code: the sentence says which one did, in the words the room view uses.
  if (constants.visibility !== 'open') {
    throw new RoomNotJoinableError(
      room.roomId,
      `its visibility is ${constants.visibility} (only an open session takes joins, whatever its joinability)`,
    );
  }
  const key = generateRegistrationKey();
  const keyHash = storedHashOfKey(key);
  const pendingUntil = provisional ? { v: deps.answerBy.getTime() } : {};
  const spec = (now: Date) => ({
    account: command.account,
    keyHash,
    member: { ...newReservation(room, now.getTime(), constants.timeouts, command.scopes), ...pendingUntil },
    heartbeatSince: heartbeatCutoff(now, deps.heartbeatTimeoutS),
  });
  let now = deps.now();
  let outcome: ClaimResult = await deps.sessions.claim(room.roomId, spec(now), now.getTime());
  for (let attempt = 0; ; attempt++) {
    switch (outcome.state) {
      case 'Claimed':
        return {
          key,
          keyHash,
          reissued: false,
          member: spec(now).member,
          room: { ...room, state: outcome.roomState, players: outcome.players, changeNumber: outcome.changeNumber },
        };
      case 'NotFound':
        throw new RoomNotFoundError(room.roomId);
      case 'NotJoinable':
        throw new RoomNotJoinableError(room.roomId, outcome.reason);
      case 'Silent':
        throw await silenceError(room.roomId, deps);
      case 'Full':
        throw new RoomFullError(room.roomId);
      case 'AlreadyMember': {
        // Our own claim, applied although its answer was lost (a timeout): the slot is ours.
        if (outcome.keyHash === keyHash) return { key, keyHash, reissued: false, member: outcome.member, room };
        const reissued = await deps.sessions.reissueKey(room.roomId, {
          account: command.account,
          member: outcome.member,
          newKeyHash: keyHash,
          now: now.getTime(),
          ...(outcome.keyHash === undefined ? {} : { oldKeyHash: outcome.keyHash }),
        });
        if (reissued === 'Reissued') {
          return {
            key,
            keyHash,
            reissued: true,
            member: outcome.member,
            room,
            ...(outcome.keyHash === undefined ? {} : { previousKeyHash: outcome.keyHash }),
          };
        }
        break;
      }
      case 'Reclaim':
        pastDeadline(deps, room.roomId);
        now = deps.now();
        outcome = await deps.sessions.reclaimAndClaim(
          room.roomId,
          { ...spec(now), expired: outcome.expired, maxPlayers: room.maxPlayers },
          now.getTime(),
        );
        continue;
      // Pending: full only if the provisional members' checks pass; wait for their verdict.
      case 'Pending':
      case 'Retry':
      case 'Contention':
        await deps.sleep(jitteredBackoff(attempt));
        break;
    }
    pastDeadline(deps, room.roomId);
    now = deps.now();
    outcome = await deps.sessions.claim(room.roomId, spec(now), now.getTime());
  }
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
      { retryAfterS: heartbeatDefaults.intervalS, cause: error, details: { roomId, reason: 'not-heard-from' } },
    );
  }
  if (verdict.cause === 'room') return silent();
  return new DependencyUnavailableError(
    `Room '${roomId}' has not been heard from lately, but neither has the platform heard everything it should ` +
      `(${verdict.why}); try again in ${verdict.retryAfterS} s.`,
    { retryAfterS: verdict.retryAfterS, details: { roomId, reason: 'not-heard-from' } },
  );
}

/** Reads in flight, by room: a burst of joins on a room this process has not seen shares one read. */
const reading = new Map<string, Promise<SessionRead | undefined>>();

function readOnce(roomId: string, deps: JoinRoomDependencies): Promise<SessionRead | undefined> {
  const shared = reading.get(roomId);
  // A shared read that failed fails nobody but its starter: the others read for themselves.
  if (shared) return shared.catch(() => readPatiently(roomId, deps));
  const read = readPatiently(roomId, deps).finally(() => reading.delete(roomId));
  reading.set(roomId, read);
  return read;
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
      await deps.sleep(jitteredBackoff(attempt));
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

async function answer(claimed: ClaimedSlot, deps: JoinRoomDependencies): Promise<JoinRoomResult> {
  const cache = deps.cache ?? roomConstants;
  let current = claimed.room;
  if (current.state === 'spawning') {
    current = await waitWhileSpawning(current.roomId, deps);
  } else if (!RoomConstantsCache.settled(current)) {
    const read = await deps.sessions.read(current.roomId);
    if (!read) throw new RoomNotFoundError(current.roomId);
    current = read.room;
  }
  if (RoomConstantsCache.settled(current)) cache.remember(current);
  if (!isLive(current.state)) throw new RoomNotJoinableError(current.roomId, `the room is ${current.state}`);
  const placement = current.placement;
  const expiry =
    expiryOf(claimed.member, current) ??
    // Still spawning: the latest it can expire. A member with no timeout: a reservation's length from now.
    (current.state === 'spawning' && claimed.member.p !== undefined
      ? Date.parse(current.spawnDeadline) + claimed.member.p
      : deps.now().getTime() + current.reservationTimeoutS * 1000);
  return {
    room: current,
    spawning: current.state === 'spawning',
    reservation: {
      key: claimed.key,
      // A peer-hosted session has no server: its reservations name no host or ports.
      ...(current.hosting === 'peerHosted'
        ? {}
        : {
            host: (current.state === 'ready' ? playerAddress(current) : undefined) ?? unknownHost,
            ports: placement?.ports ?? [],
          }),
      expiresAt: new Date(expiry).toISOString(),
    },
  };
}

/**
 * Reads of rooms that joiners wait on while their servers start, shared by every waiter in
 * this process: a find-or-create stampede parks hundreds of players on the few rooms being
 * started, and each polling on its own sent thousands of strongly consistent reads a second
 * to the same items (measured: 1,000 players swamped DynamoDB Local and placed a third of
 * themselves in two minutes). A read started less than `maxAgeMs` ago, finished or not,
 * answers every waiter of that room.
 */
export class SharedRoomReads {
  private readonly recent = new Map<
    string,
    { readonly startedAt: number; readonly read: Promise<SessionRead | undefined> }
  >();

  constructor(private readonly maxAgeMs = 50) {}

  read(roomId: string, sessions: Pick<SessionStore, 'read'>, now: number): Promise<SessionRead | undefined> {
    const hit = this.recent.get(roomId);
    if (hit && now - hit.startedAt < this.maxAgeMs) return hit.read;
    if (this.recent.size > 1_000)
      for (const [id, entry] of this.recent) if (now - entry.startedAt >= this.maxAgeMs) this.recent.delete(id);
    const read = sessions.read(roomId);
    const entry = { startedAt: now, read };
    this.recent.set(roomId, entry);
    // A failed read is not handed to later waiters.
    read.catch(() => {
      if (this.recent.get(roomId) === entry) this.recent.delete(roomId);
    });
    return read;
  }
}

const spawningRoomReads = new SharedRoomReads();

async function waitWhileSpawning(roomId: string, deps: JoinRoomDependencies): Promise<Room> {
  const reads = deps.spawningReads ?? spawningRoomReads;
  let pause = 10;
  for (;;) {
    const read = await reads.read(roomId, deps.sessions, deps.now().getTime());
    if (!read) throw new RoomNotFoundError(roomId);
    const now = deps.now();
    if (read.room.state !== 'spawning' || now.getTime() >= deps.answerBy.getTime()) return read.room;
    await deps.sleep(pause);
    pause = Math.min(pause * 2, 100);
  }
}
