import { childLogger } from '../infra/logger';
import type { PlatformCache } from '../infra/platform-cache';
import type { BanRestored, Bans } from './ban-store';
import { banInForce, newBan, type Ban, type BanRequest } from './bans';
import {
  AccountBannedError,
  BanNotFoundError,
  CommandRateLimitedError,
  CreateRateLimitedError,
  InviteRateLimitedError,
  JoinRateLimitedError,
  MessagePollRateLimitedError,
  type AbuseRateLimitedError,
  type RateLimitDetails,
} from './errors';
import type { RateLimits } from './rate-limit-store';
import { retryAfterSeconds, type RateLimitPolicy } from './rate-limit';

interface AbuseLimits {
  /** Joins (room join and matchmaking) per account in any 60 s span. */
  readonly joinsPerMinute: number;
  /** Room creations per account in any 60 s span. */
  readonly createsPerMinute: number;
  /** Commands to game servers per account in any 60 s span. @default 60 */
  readonly commandsPerMinute?: number;
  /** Reads of the owner's message long poll per account in any 60 s span. @default 120 */
  readonly messagePollsPerMinute?: number;
  /** Invite requests (each up to 10 accounts) per inviting account in any 60 s span. @default 30 */
  readonly invitesPerMinute?: number;
}

export interface AbuseGuardDependencies {
  readonly bans: Bans;
  readonly rates: RateLimits;
  readonly limits: AbuseLimits;
  /**
   * The process's cache (Platform's): the accounts whose logs are full until their oldest
   * admission leaves the window, and those whose joins it has just seen refused by a ban.
   */
  readonly cache: PlatformCache;
}

/**
 * The account checks of one join or create, split by what they need: `known` answers from
 * this process's memory (no request) and is awaited BEFORE anything is claimed or written;
 * `decide` is one DynamoDB request (the gate's conditional write, ban included) and runs
 * BESIDE the action's own requests. Either throws the refusal.
 */
export interface AccountChecks {
  readonly known: () => Promise<void>;
  readonly decide: () => Promise<void>;
}

/** The 429 of one rate-limited action. */
type RateLimitedErrorClass = new (
  account: string,
  rate: RateLimitDetails,
  options?: { cause?: unknown },
) => AbuseRateLimitedError;

/** What `accountRefused` holds: until when the account's log admits nobody (epoch ms). */
interface Refusal {
  readonly freeAtMs: number;
}

type AccountAction = 'join' | 'create';

/** What `accountBanned` holds: the ban's end, absent if permanent. */
interface KnownBan {
  readonly expiresAt?: string | undefined;
}

const log = childLogger('abuse');

/**
 * Keeps one account from hurting the others: bans, and per-account rate limits on joining
 * and creating rooms, commanding game servers and long-polling their messages. Handlers call
 * an `assert…Allowed` method (or run `checks(…)` beside their own requests) before any room is
 * changed; it returns nothing or throws a `PlatformError` that the HTTP middleware maps to the
 * docs/api.md body:
 *
 * - `AccountBannedError`: 403 `BANNED`, message says until when (if the ban expires);
 * - `JoinRateLimitedError`, `CreateRateLimitedError`, `CommandRateLimitedError`,
 *   `MessagePollRateLimitedError`: 429 `RATE_LIMITED` with `Retry-After`
 *   (whole seconds until the oldest admission of the last 60 s leaves the window, ≥ 1).
 *
 * An admission is ONE conditional UpdateItem of the account's gate for the action
 * (core/abuse/rate-limit-store.ts): its sliding-window log, and its ban, mirrored there when
 * placed (core/abuse/ban-store.ts). No 60 s span admits more than the limit, however many
 * processes count; a ban takes effect exactly, at once in every process; and a refused request
 * records nothing, so a banned account spends no allowance and hammering never pushes the next
 * admission back. A refusal by a full log is remembered until its oldest admission leaves the
 * window (`accountRefused`), an exact fact: it only refuses; and a join refused by a ban is
 * remembered for a second (`accountBanned`), so a banned account's joins do not claim a slot
 * on every attempt. Paths that are not counted read the ban item itself (`assertNotBanned`).
 */
export class AbuseGuard {
  private readonly policies: Readonly<Record<AccountAction, RateLimitPolicy>>;
  private readonly commandPolicy: RateLimitPolicy;
  private readonly messagePollPolicy: RateLimitPolicy;
  private readonly invitePolicy: RateLimitPolicy;
  /** Every gate a ban is mirrored onto. */
  private readonly gates: readonly RateLimitPolicy[];

  constructor(private readonly deps: AbuseGuardDependencies) {
    this.policies = {
      join: { action: 'join', limit: deps.limits.joinsPerMinute, windowS: 60 },
      create: { action: 'create', limit: deps.limits.createsPerMinute, windowS: 60 },
    };
    this.commandPolicy = { action: 'command', limit: deps.limits.commandsPerMinute ?? 60, windowS: 60 };
    this.messagePollPolicy = { action: 'messagePoll', limit: deps.limits.messagePollsPerMinute ?? 120, windowS: 60 };
    this.invitePolicy = { action: 'invite', limit: deps.limits.invitesPerMinute ?? 30, windowS: 60 };
    this.gates = [
      this.policies.join,
      this.policies.create,
      this.commandPolicy,
      this.messagePollPolicy,
      this.invitePolicy,
    ];
  }

  /**
   * The checks of one join or create at `now`, for a caller that runs them beside its own
   * requests (core/rooms/join.ts, the create handler). `decide` is the gate's one write, which
   * refuses a banned account (403) or a full log (429) and spends nothing when it refuses.
   *
   * @example
   * const checks = p.abuse.checks('create', principal.account, p.now());
   * await checks.known(); // 403 or 429 from memory, before anything is written
   * const [allowed, resolved] = await Promise.allSettled([checks.decide(), resolveCreateRequest(body, deps)]);
   */
  checks(action: AccountAction, account: string, now: Date): AccountChecks {
    return {
      known: () => this.assertNotKnownRefused(action, account, now),
      decide: () => this.countAccount(action, account, now),
    };
  }

  /**
   * Call before `POST /v1/rooms/{roomId}/join` and `POST /v1/matchmaking/join` do anything.
   * Counts the attempt against the account's join allowance (`JOIN_RATE_LIMIT_PER_MINUTE`).
   *
   * @throws AccountBannedError 403 `BANNED` while a ban is in force.
   * @throws JoinRateLimitedError 429 `RATE_LIMITED`, `Retry-After` set.
   * @example
   * const { abuse, now } = platform();
   * await abuse.assertJoinAllowed(principal.account, now());
   */
  async assertJoinAllowed(account: string, now: Date): Promise<void> {
    await this.assertAllowed('join', account, now);
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
    await this.assertAllowed('create', account, now);
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
    await this.count(account, now, this.messagePollPolicy, MessagePollRateLimitedError);
  }

  /**
   * Call before `POST /v1/rooms/{roomId}/invites` writes anything. Counts against
   * `INVITE_RATE_LIMIT_PER_MINUTE`: one account cannot keep reserving slots for others.
   *
   * @throws AccountBannedError 403 `BANNED` while a ban of the inviter is in force.
   * @throws InviteRateLimitedError 429 `RATE_LIMITED`, `Retry-After` set.
   */
  async assertInviteAllowed(account: string, now: Date): Promise<void> {
    await this.count(account, now, this.invitePolicy, InviteRateLimitedError);
  }

  /**
   * The first of `accounts` (in their order) under a ban in force at `now`, if any: one
   * strongly consistent read of each ban item, all at once. Inviting a banned account fails.
   */
  async firstBanned(accounts: readonly string[], now: Date): Promise<string | undefined> {
    const bans = await Promise.all(accounts.map((account) => this.deps.bans.find(account)));
    return accounts.find((_, i) => {
      const ban = bans[i];
      return ban !== undefined && banInForce(ban, now);
    });
  }

  /**
   * Throws `AccountBannedError` if a ban is in force at `now`; a check without counting,
   * for paths that are not rate limited: one strongly consistent read of the ban item.
   *
   * @example
   * await platform().abuse.assertNotBanned(principal.account, platform().now());
   */
  async assertNotBanned(account: string, now: Date): Promise<void> {
    const ban = await this.deps.bans.find(account);
    if (ban && banInForce(ban, now)) throw new AccountBannedError(account, ban.expiresAt);
  }

  /**
   * Places (or replaces) a ban: the account's next request through any process is refused.
   * Rooms it already holds are left alone.
   *
   * @throws RequestInvalidError 400 when `expiresAt` is not after `now`.
   * @example
   * const ban = await platform().abuse.ban({ account: 'mallory', reason: 'spam' }, principal.account, now);
   */
  async ban(request: BanRequest, by: string, now: Date): Promise<Ban> {
    const ban = newBan(request, by, now);
    await this.deps.bans.put(ban, this.gates, now);
    log.info('ban placed', { account: ban.account, by, expiresAt: ban.expiresAt ?? 'never' });
    return ban;
  }

  /**
   * A ban record as the previous release stored it, without its mirrors on the gates: placed
   * anew on every gate (or deleted if over), only while it is still the stored ban
   * (core/upgrade/table-upgrade.ts).
   */
  restoreBan(ban: Ban, now: Date): Promise<BanRestored> {
    return this.deps.bans.restore(ban, this.gates, now);
  }

  /**
   * The ban in force at `now`, read from the table (an admin's question deserves no cache).
   *
   * @throws BanNotFoundError 404 when there is none (or only an expired one).
   */
  async getBan(account: string, now: Date): Promise<Ban> {
    const ban = await this.deps.bans.find(account);
    if (!ban || !banInForce(ban, now)) throw new BanNotFoundError(account);
    return ban;
  }

  /**
   * Lifts the account's ban: its next request through any process is admitted, except a join
   * through a process that saw one of its joins refused by the ban in the last second (within
   * 1 s there). An expired item is removed as well, but answers as absent.
   *
   * @throws BanNotFoundError 404 when no ban was in force.
   */
  async liftBan(account: string, by: string, now: Date): Promise<void> {
    const ban = await this.deps.bans.delete(account, this.gates, now);
    this.deps.cache.forget('accountBanned', account);
    if (!ban || !banInForce(ban, now)) throw new BanNotFoundError(account);
    log.info('ban lifted', { account, by });
  }

  private async assertAllowed(action: AccountAction, account: string, now: Date): Promise<void> {
    await this.assertNotKnownRefused(action, account, now);
    await this.countAccount(action, account, now);
  }

  /**
   * The refusals this process knows without a request: a full log, until its oldest admission
   * leaves the window; and for a join, a ban its gate reported in the last second (the ban's
   * own end still judged), so a banned account's joins claim no slot meanwhile.
   */
  private async assertNotKnownRefused(action: AccountAction, account: string, now: Date): Promise<void> {
    if (action === 'join') {
      const banned = await this.deps.cache.peek<KnownBan>('accountBanned', account);
      if (banned && banInForce(banned, now)) throw new AccountBannedError(account, banned.expiresAt);
    }
    const refusal = await this.deps.cache.peek<Refusal>('accountRefused', refusalKey(action, account));
    if (refusal && now.getTime() < refusal.freeAtMs) {
      const policy = this.policies[action];
      const retryAfterS = retryAfterSeconds(refusal.freeAtMs - policy.windowS * 1000, policy, now);
      throw new (rateLimitedError(action))(account, { ...details(policy), retryAfterS });
    }
  }

  /** One admission of a join or create in the account's log; a full log's refusal is remembered. */
  private async countAccount(action: AccountAction, account: string, now: Date): Promise<void> {
    const policy = this.policies[action];
    const result = await this.deps.rates.count(account, policy, now);
    if (result.state === 'Banned' && action === 'join') {
      this.deps.cache.remember<KnownBan>('accountBanned', account, { expiresAt: result.expiresAt });
    }
    if (result.state === 'Exhausted') {
      this.deps.cache.remember<Refusal>('accountRefused', refusalKey(action, account), { freeAtMs: result.freeAtMs });
    }
    throwUnlessCounted(account, result, policy, rateLimitedError(action));
  }

  /** One admission in the account's log, or the 429 it earns. */
  private async count(
    account: string,
    now: Date,
    policy: RateLimitPolicy,
    RateLimited: RateLimitedErrorClass,
  ): Promise<void> {
    throwUnlessCounted(account, await this.deps.rates.count(account, policy, now), policy, RateLimited);
  }
}

function throwUnlessCounted(
  account: string,
  result: Awaited<ReturnType<RateLimits['count']>>,
  policy: RateLimitPolicy,
  RateLimited: RateLimitedErrorClass,
): void {
  if (result.state === 'Counted') return;
  if (result.state === 'Banned') throw new AccountBannedError(account, result.expiresAt);
  throw new RateLimited(
    account,
    { ...details(policy), retryAfterS: result.retryAfterS },
    result.state === 'Contention' ? { cause: result.cause } : {},
  );
}

const details = (policy: RateLimitPolicy) => ({ action: policy.action, limit: policy.limit, windowS: policy.windowS });

const rateLimitedError = (action: AccountAction): RateLimitedErrorClass =>
  action === 'join' ? JoinRateLimitedError : CreateRateLimitedError;

const refusalKey = (action: AccountAction, account: string) => `${action}#${account}`;
