import { childLogger } from '../infra/logger';
import { BanSnapshot, banSnapshotMaxAgeMs, type KeepFreshOptions } from './ban-snapshot';
import type { Bans } from './ban-store';
import { banInForce, newBan, type Ban, type BanRequest } from './bans';
import {
  AccountBannedError,
  BanNotFoundError,
  CommandRateLimitedError,
  CreateRateLimitedError,
  JoinRateLimitedError,
  MessagePollRateLimitedError,
  type AbuseRateLimitedError,
  type RateLimitDetails,
} from './errors';
import type { RateLimits } from './rate-limit-store';
import type { RateLimitPolicy } from './rate-limit';
import { logPolicy, type PermitLeases } from './permit-leases';

export interface AbuseLimits {
  /** Joins (room join and matchmaking) per account in any 60 s span. */
  readonly joinsPerMinute: number;
  /** Room creations per account in any 60 s span. */
  readonly createsPerMinute: number;
  /** Commands to game servers per account in any 60 s span. @default 60 */
  readonly commandsPerMinute?: number;
  /** Reads of the owner's message long poll per account in any 60 s span. @default 120 */
  readonly messagePollsPerMinute?: number;
}

export interface AbuseGuardDependencies {
  readonly bans: Bans;
  readonly rates: RateLimits;
  readonly limits: AbuseLimits;
  /**
   * This process's permit leases for joins (core/abuse/permit-leases.ts): most joins then pass
   * without a write. Absent: every join is counted in the account's log against the whole limit.
   */
  readonly joinLeases?: PermitLeases;
  /** The same for room creations: most warm creates then pass the guard without a request. */
  readonly createLeases?: PermitLeases;
}

/** The 429 of one rate-limited action. */
type RateLimitedErrorClass = new (
  account: string,
  rate: RateLimitDetails,
  options?: { cause?: unknown },
) => AbuseRateLimitedError;

/** One rate-limited action's allowance as the guard spends it. */
interface Allowance {
  /** The whole allowance: what a 429 states. */
  readonly policy: RateLimitPolicy;
  /** The share kept in each account's log (all of it without leases). */
  readonly logPolicy: RateLimitPolicy;
  readonly leases: PermitLeases | undefined;
  readonly RateLimited: typeof JoinRateLimitedError | typeof CreateRateLimitedError;
}

const log = childLogger('abuse');

/**
 * How long a request waits for this process's first lease acquisition before its account's
 * log admits it instead: a stalled DynamoDB then costs a request one silence (the log's),
 * not the lease write's and then the log's.
 */
const firstLeaseWaitMs = 1_000;

/**
 * How old this process's view of the bans may be: a ban (or its lifting) placed through another
 * process takes effect on joins and creates within this time; through this process, at once.
 */
export const banCacheMs = banSnapshotMaxAgeMs;

/**
 * Keeps one account from hurting the others: bans, and per-account rate limits on joining
 * and creating rooms, commanding game servers and long-polling their messages. Handlers call
 * an `assert…Allowed` method first thing after validation, before any room is read or
 * written; it returns nothing or throws a `PlatformError` that the HTTP middleware maps to
 * the docs/api.md body:
 *
 * - `AccountBannedError`: 403 `BANNED`, message says until when (if the ban expires);
 * - `JoinRateLimitedError`, `CreateRateLimitedError`, `CommandRateLimitedError`,
 *   `MessagePollRateLimitedError`: 429 `RATE_LIMITED` with `Retry-After`
 *   (whole seconds until the oldest admission of the last 60 s leaves the window, ≥ 1).
 *
 * Each check is a ban lookup in this process's snapshot of every ban (core/abuse/ban-snapshot.ts:
 * read once a second, so a ban takes effect within 1 s, and no read per request) and then, only
 * if not banned, an admission: under one of this process's permit leases, from memory
 * (core/abuse/permit-leases.ts), or else one conditional UpdateItem of the account's
 * sliding-window log (core/abuse/rate-limit.ts). No 60 s span admits more than the limit, a
 * banned account spends no allowance, and a refused request records nothing, so hammering
 * never pushes the next admission back.
 */
export class AbuseGuard {
  private readonly joins: Allowance;
  private readonly creates: Allowance;
  private readonly commandPolicy: RateLimitPolicy;
  private readonly messagePollPolicy: RateLimitPolicy;
  private readonly bans: BanSnapshot;

  constructor(private readonly deps: AbuseGuardDependencies) {
    this.bans = new BanSnapshot(deps.bans);
    this.joins = allowance(
      { action: 'join', limit: deps.limits.joinsPerMinute, windowS: 60 },
      deps.joinLeases,
      JoinRateLimitedError,
    );
    this.creates = allowance(
      { action: 'create', limit: deps.limits.createsPerMinute, windowS: 60 },
      deps.createLeases,
      CreateRateLimitedError,
    );
    this.commandPolicy = { action: 'command', limit: deps.limits.commandsPerMinute ?? 60, windowS: 60 };
    this.messagePollPolicy = { action: 'messagePoll', limit: deps.limits.messagePollsPerMinute ?? 120, windowS: 60 };
  }

  /**
   * Call before `POST /v1/rooms/{roomId}/join` and `POST /v1/matchmaking/join` do anything.
   * Counts the attempt against the account's join allowance (`JOIN_RATE_LIMIT_PER_MINUTE`).
   *
   * @throws AccountBannedError 403 `BANNED` while a ban is in force.
   * @throws JoinRateLimitedError 429 `RATE_LIMITED`, `Retry-After` set.
   * @example
   * export const handler = httpHandler({ auth: {}, params }, async ({ params, principal }) => {
   *   const { abuse, now } = platform();
   *   await abuse.assertJoinAllowed(principal.account, now());
   *   // … join the room
   * });
   */
  async assertJoinAllowed(account: string, now: Date): Promise<void> {
    await this.assertNotBanned(account, now);
    await this.admit(account, now, this.joins);
  }

  /**
   * `assertJoinAllowed`, decided from memory when it can be: returns `undefined` (admitted) or
   * throws (banned) WITHOUT a promise when the ban snapshot is fresh and a permit lease admits
   * the account; otherwise the promise of `assertJoinAllowed`. A join decided from memory
   * claims its slot knowing it is admitted, so it never holds a slot it must give back.
   */
  admitJoin(account: string, now: Date): Promise<void> | undefined {
    return this.admitFromMemory(account, now, this.joins) ? undefined : this.assertJoinAllowed(account, now);
  }

  /**
   * Call before `POST /v1/rooms` creates anything, and in matchmaking right before it falls
   * back to creating a room (the join was already counted; this bounds the rooms an account
   * can make through either path). Counts against `CREATE_RATE_LIMIT_PER_MINUTE`.
   *
   * @throws AccountBannedError 403 `BANNED` while a ban is in force.
   * @throws CreateRateLimitedError 429 `RATE_LIMITED`, `Retry-After` set.
   * @example
   * const { abuse, now } = platform();
   * await abuse.assertCreateAllowed(principal.account, now());
   */
  async assertCreateAllowed(account: string, now: Date): Promise<void> {
    const seen = this.bans.peek(account, now);
    if (seen.state === 'stale' && !seen.knownBanned) {
      // The snapshot's refresh and the admission at once, not one after the other: a create (a
      // warm one answers in tens of milliseconds) does not wait two round trips. Only an account
      // banned in the last second, that this process did not know of yet, spends one create of
      // its allowance; one it knows banned never does.
      const [ban, admitted] = await Promise.allSettled([
        this.assertNotBanned(account, now),
        this.admit(account, now, this.creates),
      ]);
      if (ban.status === 'rejected') throw ban.reason;
      if (admitted.status === 'rejected') throw admitted.reason;
      return;
    }
    await this.assertNotBanned(account, now);
    await this.admit(account, now, this.creates);
  }

  /**
   * `assertCreateAllowed`, decided from memory when it can be, as `admitJoin` is for joins:
   * returns `undefined` (admitted) or throws `AccountBannedError` (banned) WITHOUT a promise
   * when the ban snapshot is fresh and a permit lease admits the account; otherwise the promise
   * of `assertCreateAllowed`.
   *
   * @example
   * const admitted = p.abuse.admitCreate(principal.account, p.now()); // may throw 403 here
   * if (admitted) await admitted; // 403 or 429
   */
  admitCreate(account: string, now: Date): Promise<void> | undefined {
    return this.admitFromMemory(account, now, this.creates) ? undefined : this.assertCreateAllowed(account, now);
  }

  /**
   * Keeps this process's ban snapshot young in the background (core/abuse/ban-snapshot.ts,
   * `keepFresh`), so `admitJoin` and `admitCreate` rarely find it stale. For long-lived
   * processes (the local cloud); Lambda does not call it.
   */
  keepBansFresh(options: KeepFreshOptions): void {
    this.bans.keepFresh(options);
  }

  /**
   * Call before `POST /v1/rooms/{roomId}/commands` does anything. Counts against
   * `COMMAND_RATE_LIMIT_PER_MINUTE`: a game server hears at most that many commands a minute
   * from its owner, however many the owner sends.
   *
   * @throws AccountBannedError 403 `BANNED` while a ban is in force.
   * @throws CommandRateLimitedError 429 `RATE_LIMITED`, `Retry-After` set.
   */
  async assertCommandAllowed(account: string, now: Date): Promise<void> {
    await this.assertNotBanned(account, now);
    await this.count(account, now, this.commandPolicy, CommandRateLimitedError);
  }

  /**
   * Call before `GET /v1/rooms/{roomId}/messages` reads anything. Counts against
   * `MESSAGE_POLL_RATE_LIMIT_PER_MINUTE`: a long poll holds a request open for up to 20 s and
   * reads the table several times a second meanwhile, so one account's polls are bounded
   * like its commands, and a banned account reads nothing.
   *
   * @throws AccountBannedError 403 `BANNED` while a ban is in force.
   * @throws MessagePollRateLimitedError 429 `RATE_LIMITED`, `Retry-After` set.
   * @example
   * const p = platform();
   * await p.abuse.assertMessagePollAllowed(principal.account, p.now());
   */
  async assertMessagePollAllowed(account: string, now: Date): Promise<void> {
    await this.assertNotBanned(account, now);
    await this.count(account, now, this.messagePollPolicy, MessagePollRateLimitedError);
  }

  /**
   * Throws `AccountBannedError` if a ban is in force at `now`; a check without counting,
   * for paths that are not rate limited.
   *
   * @example
   * await platform().abuse.assertNotBanned(principal.account, platform().now());
   */
  async assertNotBanned(account: string, now: Date): Promise<void> {
    const ban = await this.bans.lookup(account, now);
    if (ban) throw new AccountBannedError(account, ban.expiresAt);
  }

  /**
   * Places (or replaces) a ban. Takes effect on the account's next request; rooms it already
   * holds are left alone.
   *
   * @throws RequestInvalidError 400 when `expiresAt` is not after `now`.
   * @example
   * const ban = await platform().abuse.ban({ account: 'mallory', reason: 'spam' }, principal.account, now);
   */
  async ban(request: BanRequest, by: string, now: Date): Promise<Ban> {
    const ban = newBan(request, by, now);
    await this.deps.bans.put(ban);
    this.bans.placed(ban.account, ban);
    log.info('ban placed', { account: ban.account, by, expiresAt: ban.expiresAt ?? 'never' });
    return ban;
  }

  /**
   * The ban in force at `now`.
   *
   * @throws BanNotFoundError 404 when there is none (or only an expired one).
   */
  async getBan(account: string, now: Date): Promise<Ban> {
    const ban = await this.deps.bans.find(account);
    if (!ban || !banInForce(ban, now)) throw new BanNotFoundError(account);
    return ban;
  }

  /**
   * Lifts the account's ban. An expired item is removed as well, but answers as absent.
   *
   * @throws BanNotFoundError 404 when no ban was in force.
   */
  async liftBan(account: string, by: string, now: Date): Promise<void> {
    const ban = await this.deps.bans.delete(account);
    this.bans.lifted(account);
    if (!ban || !banInForce(ban, now)) throw new BanNotFoundError(account);
    log.info('ban lifted', { account, by });
  }

  /**
   * True when the snapshot is fresh and a settled lease admits the account; throws when the
   * snapshot is fresh and has it banned; false when only a request can decide. An admission
   * from memory claims its lease slot knowing it is admitted, so it never holds one it must
   * give back.
   */
  private admitFromMemory(account: string, now: Date, allowance: Allowance): boolean {
    const seen = this.bans.peek(account, now);
    if (seen.state !== 'fresh') return false;
    if (seen.ban) throw new AccountBannedError(account, seen.ban.expiresAt);
    const leases = allowance.leases;
    return leases !== undefined && leases.settled(now) && leases.tryAdmit(account, now);
  }

  /** One admission under a lease of this process, else in the account's log; or the 429 it earns. */
  private async admit(account: string, now: Date, allowance: Allowance): Promise<void> {
    const { leases } = allowance;
    if (leases) {
      await leases.ready(now, firstLeaseWaitMs);
      if (leases.tryAdmit(account, now)) return;
    }
    await this.count(account, now, allowance.logPolicy, allowance.RateLimited, allowance.policy);
  }

  /** One admission in the account's log, or the 429 it earns. */
  private async count(
    account: string,
    now: Date,
    policy: RateLimitPolicy,
    RateLimited: RateLimitedErrorClass,
    /** What the caller is told the limit is (the whole allowance, leases included). */
    stated: RateLimitPolicy = policy,
  ): Promise<void> {
    const result = await this.deps.rates.count(account, policy, now);
    if (result.state === 'Counted') return;
    const details = { action: stated.action, limit: stated.limit, windowS: stated.windowS };
    throw new RateLimited(
      account,
      { ...details, retryAfterS: result.retryAfterS },
      result.state === 'Contention' ? { cause: result.cause } : {},
    );
  }
}

/** With leases the log keeps only its share of the allowance; the leases hold the rest. */
function allowance(
  policy: RateLimitPolicy,
  leases: PermitLeases | undefined,
  RateLimited: Allowance['RateLimited'],
): Allowance {
  return { policy, logPolicy: leases ? logPolicy(policy) : policy, leases, RateLimited };
}
