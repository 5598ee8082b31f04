import { childLogger } from '../infra/logger';
import type { Bans } from './ban-store';
import { banInForce, newBan, type Ban, type BanRequest } from './bans';
import { AccountBannedError, BanNotFoundError, CreateRateLimitedError, JoinRateLimitedError } from './errors';
import type { RateLimits } from './rate-limit-store';
import type { RateLimitPolicy } from './rate-limit';

export interface AbuseLimits {
  /** Joins (room join and matchmaking) per account in any 60 s span. */
  readonly joinsPerMinute: number;
  /** Room creations per account in any 60 s span. */
  readonly createsPerMinute: number;
}

export interface AbuseGuardDependencies {
  readonly bans: Bans;
  readonly rates: RateLimits;
  readonly limits: AbuseLimits;
}

const log = childLogger('abuse');

/**
 * How long this process trusts a ban lookup: a ban (or its lifting) placed through another
 * process takes effect on joins and creates within this time; through this process, at once.
 */
export const banCacheMs = 1_000;
const maxCachedBans = 10_000;

/**
 * Keeps one account from hurting the others: bans, and per-account rate limits on joining
 * and creating rooms. Handlers call an `assert…Allowed` method first thing after
 * validation, before any room is read or written; it returns nothing or throws a
 * `PlatformError` that the HTTP middleware maps to the API.md body:
 *
 * - `AccountBannedError`: 403 `BANNED`, message says until when (if the ban expires);
 * - `JoinRateLimitedError` / `CreateRateLimitedError`: 429 `RATE_LIMITED` with `Retry-After`
 *   (whole seconds until the oldest admission of the last 60 s leaves the window, ≥ 1).
 *
 * Each check is a ban lookup (one strongly consistent GetItem, remembered in-process for at most
 * `banCacheMs` = 1 s, so a ban takes effect within 1 s) and then, only if not banned, one
 * conditional UpdateItem (the account's sliding-window log; see core/abuse/rate-limit.ts): no
 * 60 s span admits more than the limit, a banned account spends no allowance, and a refused
 * request records nothing, so hammering never pushes the next admission back.
 */
export class AbuseGuard {
  private readonly joinPolicy: RateLimitPolicy;
  private readonly createPolicy: RateLimitPolicy;
  /** account → the ban as read (or none) and when (epoch ms, by the caller's clock). */
  private readonly bansSeen = new Map<string, { ban: Ban | undefined; atMs: number }>();

  constructor(private readonly deps: AbuseGuardDependencies) {
    this.joinPolicy = { action: 'join', limit: deps.limits.joinsPerMinute, windowS: 60 };
    this.createPolicy = { action: 'create', limit: deps.limits.createsPerMinute, windowS: 60 };
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
    await this.assertAllowed(account, now, this.joinPolicy, JoinRateLimitedError);
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
    await this.assertAllowed(account, now, this.createPolicy, CreateRateLimitedError);
  }

  /**
   * Throws `AccountBannedError` if a ban is in force at `now`; a check without counting,
   * for paths that are not rate limited.
   *
   * @example
   * await platform().abuse.assertNotBanned(principal.account, platform().now());
   */
  async assertNotBanned(account: string, now: Date): Promise<void> {
    const ban = await this.findBan(account, now);
    if (ban && banInForce(ban, now)) throw new AccountBannedError(account, ban.expiresAt);
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
    this.rememberBan(ban.account, ban, now);
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
    this.rememberBan(account, undefined, now);
    if (!ban || !banInForce(ban, now)) throw new BanNotFoundError(account);
    log.info('ban lifted', { account, by });
  }

  /** The account's ban, from a lookup at most `banCacheMs` old (a clock moved backwards reads again). */
  private async findBan(account: string, now: Date): Promise<Ban | undefined> {
    const seen = this.bansSeen.get(account);
    const age = seen ? now.getTime() - seen.atMs : Infinity;
    if (seen && age >= 0 && age < banCacheMs) return seen.ban;
    const ban = await this.deps.bans.find(account);
    this.rememberBan(account, ban, now);
    return ban;
  }

  private rememberBan(account: string, ban: Ban | undefined, now: Date): void {
    this.bansSeen.delete(account);
    this.bansSeen.set(account, { ban, atMs: now.getTime() });
    if (this.bansSeen.size > maxCachedBans) this.bansSeen.delete(this.bansSeen.keys().next().value as string);
  }

  private async assertAllowed(
    account: string,
    now: Date,
    policy: RateLimitPolicy,
    RateLimited: typeof JoinRateLimitedError | typeof CreateRateLimitedError,
  ): Promise<void> {
    await this.assertNotBanned(account, now);
    const result = await this.deps.rates.count(account, policy, now);
    if (result.state === 'Counted') return;
    const details = { action: policy.action, limit: policy.limit, windowS: policy.windowS };
    throw new RateLimited(
      account,
      { ...details, retryAfterS: result.retryAfterS },
      result.state === 'Contention' ? { cause: result.cause } : {},
    );
  }
}
