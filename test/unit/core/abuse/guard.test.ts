import { AbuseGuard } from '../../../../core/abuse/guard';
import type { Bans } from '../../../../core/abuse/ban-store';
import type { Ban } from '../../../../core/abuse/bans';
import {
  AccountBannedError,
  BanNotFoundError,
  CreateRateLimitedError,
  JoinRateLimitedError,
  MessagePollRateLimitedError,
} from '../../../../core/abuse/errors';
import type { RateCountResult, RateLimits } from '../../../../core/abuse/rate-limit-store';
import type { RateLimitPolicy } from '../../../../core/abuse/rate-limit';
import { cachedKinds, PlatformCache } from '../../../../core/infra/platform-cache';
import { InMemoryBans } from '../../../helpers/fakes/bans';
import { InMemoryRateLimits } from '../../../helpers/fakes/rate-limits';

const now = new Date('2026-01-01T12:00:30.000Z');

/** Stores that answer what the case says and record what they were asked. */
function guardWith(options: { ban?: Ban; count?: RateCountResult } = {}) {
  const counted: { account: string; policy: RateLimitPolicy }[] = [];
  const bans = {
    find: jest.fn(async () => options.ban),
    put: jest.fn(async () => undefined),
    delete: jest.fn(async () => options.ban),
  };
  const rates = {
    count: jest.fn(async (account: string, policy: RateLimitPolicy): Promise<RateCountResult> => {
      counted.push({ account, policy });
      return options.count ?? ({ state: 'Counted', sequence: 1 } as const);
    }),
  };
  const guard = new AbuseGuard({
    bans: bans satisfies Bans,
    rates: rates satisfies RateLimits,
    limits: { joinsPerMinute: 20, createsPerMinute: 10 },
    cache: new PlatformCache(),
  });
  return { guard, bans, counted };
}

const exhausted = (retryAfterS: number): RateCountResult => ({
  state: 'Exhausted',
  retryAfterS,
  freeAtMs: now.getTime() + retryAfterS * 1000,
});

const ban = (expiresAt?: string): Ban => ({
  account: 'mallory',
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'ops',
  ...(expiresAt ? { expiresAt } : {}),
});

describe('AbuseGuard.assertJoinAllowed / assertCreateAllowed', () => {
  it.each([
    ['assertJoinAllowed', 'join', 20],
    ['assertCreateAllowed', 'create', 10],
  ] as const)('%s counts against the %s limit of %i per 60 s', async (method, action, limit) => {
    const { guard, counted } = guardWith();
    await expect(guard[method]('alice', now)).resolves.toBeUndefined();
    expect(counted).toEqual([{ account: 'alice', policy: { action, limit, windowS: 60 } }]);
  });

  it.each([
    ['assertJoinAllowed', JoinRateLimitedError, 'join'],
    ['assertCreateAllowed', CreateRateLimitedError, 'create'],
  ] as const)('%s throws %p: 429 RATE_LIMITED with Retry-After', async (method, type, action) => {
    const { guard } = guardWith({ count: exhausted(30) });
    const error = await guard[method]('alice', now).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(type);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      headers: { 'Retry-After': '30' },
      details: { action, retryAfterS: 30, windowS: 60 },
    });
  });

  it('answers contention as RATE_LIMITED with Retry-After 1, keeping the cause', async () => {
    const cause = new Error('ThrottlingException');
    const { guard } = guardWith({ count: { state: 'Contention', retryAfterS: 1, cause } });
    const error = await guard.assertJoinAllowed('alice', now).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'RATE_LIMITED', headers: { 'Retry-After': '1' }, cause });
  });

  it.each([
    ['a permanent ban', undefined, 'This account is banned.'],
    ['a ban until tomorrow', '2026-01-02T00:00:00.000Z', 'This account is banned until 2026-01-02T00:00:00.000Z.'],
  ])('refuses %s with 403 BANNED before counting anything', async (_name, expiresAt, message) => {
    const { guard, counted } = guardWith({ ban: ban(expiresAt) });
    const error = await guard.assertJoinAllowed('mallory', now).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccountBannedError);
    expect(error).toMatchObject({ code: 'BANNED', status: 403, message });
    expect(counted).toEqual([]);
  });

  it('lets an expired ban through (TTL may not have collected it yet)', async () => {
    const { guard, counted } = guardWith({ ban: ban('2026-01-01T12:00:30.000Z') });
    await expect(guard.assertCreateAllowed('mallory', now)).resolves.toBeUndefined();
    expect(counted).toHaveLength(1);
  });
});

describe('AbuseGuard.assertMessagePollAllowed', () => {
  it('counts against the message poll limit (default 120 per 60 s)', async () => {
    const { guard, counted } = guardWith();
    await expect(guard.assertMessagePollAllowed('alice', now)).resolves.toBeUndefined();
    expect(counted).toEqual([{ account: 'alice', policy: { action: 'messagePoll', limit: 120, windowS: 60 } }]);
  });

  it('throws MessagePollRateLimitedError: 429 RATE_LIMITED with Retry-After, naming message polls', async () => {
    const { guard } = guardWith({ count: exhausted(12) });
    const error = await guard.assertMessagePollAllowed('alice', now).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MessagePollRateLimitedError);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      headers: { 'Retry-After': '12' },
      message: 'Too many message polls from this account: at most 120 per 60 s. Retry in 12 s.',
    });
  });

  it('refuses a banned account with 403 BANNED before counting anything', async () => {
    const { guard, counted } = guardWith({ ban: ban() });
    await expect(guard.assertMessagePollAllowed('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    expect(counted).toEqual([]);
  });
});

describe('AbuseGuard bans', () => {
  it('places a ban built from the request, by the admin, at now', async () => {
    const { guard, bans } = guardWith();
    const placed = await guard.ban({ account: 'mallory', reason: 'spam' }, 'ops', now);
    expect(placed).toEqual({ account: 'mallory', reason: 'spam', createdAt: now.toISOString(), createdBy: 'ops' });
    expect(bans.put).toHaveBeenCalledWith(placed);
  });

  const read = (guard: AbuseGuard) => guard.getBan('mallory', now);
  const lift = (guard: AbuseGuard) => guard.liftBan('mallory', 'ops', now);
  it.each([
    ['getBan', read, 'no ban', undefined],
    ['getBan', read, 'an expired ban', ban('2026-01-01T12:00:00.000Z')],
    ['liftBan', lift, 'no ban', undefined],
    ['liftBan', lift, 'an expired ban', ban('2026-01-01T12:00:00.000Z')],
  ])('%s with %s is 404 NOT_FOUND', async (_method, act, _name, stored) => {
    const { guard } = guardWith({ ban: stored });
    await expect(act(guard)).rejects.toMatchObject({ code: 'NOT_FOUND', status: 404 });
    await expect(act(guard)).rejects.toBeInstanceOf(BanNotFoundError);
  });

  it('reads back and lifts a ban in force', async () => {
    const inForce = ban('2026-01-02T00:00:00.000Z');
    const { guard, bans } = guardWith({ ban: inForce });
    await expect(guard.getBan('mallory', now)).resolves.toEqual(inForce);
    await expect(guard.liftBan('mallory', 'ops', now)).resolves.toBeUndefined();
    expect(bans.delete).toHaveBeenCalledWith('mallory');
  });
});

describe('AbuseGuard ban reads (PlatformCache kind `ban`, ≤ 1 s stale)', () => {
  /** One process: its own cache on a clock the test moves; `bans` may be shared with other processes. */
  function process(bans: Bans = new InMemoryBans(), rates: RateLimits = new InMemoryRateLimits()) {
    let clockMs = 1_000;
    const guard = new AbuseGuard({
      bans,
      rates,
      limits: { joinsPerMinute: 20, createsPerMinute: 10 },
      cache: new PlatformCache({ nowMs: () => clockMs }),
    });
    return { guard, advance: (ms: number) => (clockMs += ms) };
  }

  it('reads an account’s ban at most once per second, so a ban placed by another process takes effect within 1 s', async () => {
    const bans = new InMemoryBans();
    const find = jest.spyOn(bans, 'find');
    const here = process(bans);
    const admin = process(bans);
    await here.guard.assertNotBanned('mallory', now);
    await admin.guard.ban({ account: 'mallory' }, 'ops', now);
    here.advance(cachedKinds.ban.ttlMs);
    await expect(here.guard.assertNotBanned('mallory', now)).resolves.toBeUndefined();
    expect(find).toHaveBeenCalledTimes(1);
    here.advance(1);
    await expect(here.guard.assertNotBanned('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    expect(find).toHaveBeenCalledTimes(2);
  });

  it('a ban placed or lifted through this process takes effect here at once', async () => {
    const here = process();
    await here.guard.assertNotBanned('mallory', now);
    await here.guard.ban({ account: 'mallory' }, 'ops', now);
    await expect(here.guard.assertNotBanned('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    await here.guard.liftBan('mallory', 'ops', now);
    await expect(here.guard.assertNotBanned('mallory', now)).resolves.toBeUndefined();
  });

  it('`known` refuses an account whose ban this process read, with no request; not one it has not read', async () => {
    const bans = new InMemoryBans();
    const rates = new InMemoryRateLimits();
    await bans.put({ account: 'mallory', createdAt: now.toISOString(), createdBy: 'ops' });
    const find = jest.spyOn(bans, 'find');
    const count = jest.spyOn(rates, 'count');
    const here = process(bans, rates);
    await expect(here.guard.checks('join', 'mallory', now).known()).resolves.toBeUndefined();
    await expect(here.guard.checks('join', 'mallory', now).decide()).rejects.toBeInstanceOf(AccountBannedError);
    const [finds, counts] = [find.mock.calls.length, count.mock.calls.length];
    await expect(here.guard.checks('create', 'mallory', now).known()).rejects.toBeInstanceOf(AccountBannedError);
    expect([find.mock.calls.length, count.mock.calls.length]).toEqual([finds, counts]);
  });
});

describe('AbuseGuard.checks: a full log is refused from memory until it can admit again', () => {
  const at = (ms: number) => new Date(now.getTime() + ms);

  function process(rates: RateLimits) {
    return new AbuseGuard({
      bans: new InMemoryBans(),
      rates,
      limits: { joinsPerMinute: 20, createsPerMinute: 3 },
      cache: new PlatformCache(),
    });
  }

  async function attempt(guard: AbuseGuard, account: string, when: Date): Promise<string> {
    const checks = guard.checks('create', account, when);
    try {
      await checks.known();
    } catch (error) {
      return `known ${(error as CreateRateLimitedError).retryAfterS} s`;
    }
    return checks.decide().then(
      () => 'admitted',
      (error: unknown) => `log ${(error as CreateRateLimitedError).retryAfterS} s`,
    );
  }

  it('counts in the log until it refuses once, then refuses with no request until the oldest admission leaves the window, to the millisecond', async () => {
    const rates = new InMemoryRateLimits();
    const count = jest.spyOn(rates, 'count');
    const guard = process(rates);
    const outcomes = [];
    for (const ms of [0, 10_000, 20_000, 30_000, 40_000, 59_999]) outcomes.push(await attempt(guard, 'alice', at(ms)));
    expect(outcomes).toEqual(['admitted', 'admitted', 'admitted', 'log 30 s', 'known 20 s', 'known 1 s']);
    expect(count).toHaveBeenCalledTimes(4);
    // The first admission leaves the window at 60 s exactly: the log decides again, and admits.
    expect(await attempt(guard, 'alice', at(60_000))).toBe('admitted');
    expect(count).toHaveBeenCalledTimes(5);
    // Another account, and the same account's joins, are not refused by alice's creates.
    expect(await attempt(guard, 'bob', at(40_000))).toBe('admitted');
    await expect(guard.checks('join', 'alice', at(40_000)).known()).resolves.toBeUndefined();
  });

  it('writes the log beside the ban read: the count is sent before the ban read answers', async () => {
    const { guard, bans, counted } = guardWith();
    let answer: (ban: undefined) => void = () => undefined;
    bans.find.mockImplementationOnce(() => new Promise((resolve) => (answer = resolve)));
    const decided = guard.checks('join', 'alice', now).decide();
    await new Promise((resolve) => setImmediate(resolve));
    expect(counted).toHaveLength(1);
    answer(undefined);
    await expect(decided).resolves.toBeUndefined();
  });
});
