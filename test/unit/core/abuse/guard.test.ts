import { AbuseGuard } from '../../../../core/abuse/guard';
import type { BanRestored, Bans } from '../../../../core/abuse/ban-store';
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
import { PlatformCache } from '../../../../core/infra/platform-cache';
import { InMemoryBans } from '../../../helpers/fakes/bans';
import { InMemoryRateLimits } from '../../../helpers/fakes/rate-limits';

const now = new Date('2026-01-01T12:00:30.000Z');

/** Stores that answer what the case says and record what they were asked. */
function guardWith(options: { ban?: Ban; count?: RateCountResult } = {}) {
  const counted: { account: string; policy: RateLimitPolicy }[] = [];
  const bans = {
    find: jest.fn(async (_account: string) => options.ban),
    put: jest.fn(async (_ban: Ban, _gates: readonly RateLimitPolicy[], _now: Date) => undefined),
    delete: jest.fn(async (_account: string, _gates: readonly RateLimitPolicy[], _now: Date) => options.ban),
    restore: jest.fn(async (): Promise<BanRestored> => 'changed'),
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
  ])(
    'answers %s, as the gate’s write reports it, with 403 BANNED and no ban read',
    async (_name, expiresAt, message) => {
      const { guard, bans } = guardWith({ count: { state: 'Banned', ...(expiresAt ? { expiresAt } : {}) } });
      const error = await guard.assertJoinAllowed('mallory', now).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AccountBannedError);
      expect(error).toMatchObject({ code: 'BANNED', status: 403, message });
      expect(bans.find).not.toHaveBeenCalled();
    },
  );
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

  it('refuses a banned account with 403 BANNED in the same one write', async () => {
    const { guard, bans, counted } = guardWith({ count: { state: 'Banned' } });
    await expect(guard.assertMessagePollAllowed('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    expect([counted.length, bans.find.mock.calls.length]).toEqual([1, 0]);
  });
});

describe('AbuseGuard bans', () => {
  const allGates = [
    { action: 'join', limit: 20, windowS: 60 },
    { action: 'create', limit: 10, windowS: 60 },
    { action: 'command', limit: 60, windowS: 60 },
    { action: 'messagePoll', limit: 120, windowS: 60 },
    { action: 'invite', limit: 30, windowS: 60 },
  ];

  it('places a ban built from the request, by the admin, at now, mirrored onto every counted action’s gate', async () => {
    const { guard, bans } = guardWith();
    const placed = await guard.ban({ account: 'mallory', reason: 'spam' }, 'ops', now);
    expect(placed).toEqual({ account: 'mallory', reason: 'spam', createdAt: now.toISOString(), createdBy: 'ops' });
    expect(bans.put).toHaveBeenCalledWith(placed, allGates, now);
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
    expect(bans.delete).toHaveBeenCalledWith('mallory', allGates, now);
  });
});

describe('AbuseGuard bans take effect exactly, in every process', () => {
  /** One process: its own guard and cache; `bans` (and the gates it mirrors onto) shared with the others. */
  const process = (bans: InMemoryBans) =>
    new AbuseGuard({
      bans,
      rates: bans.rates,
      limits: { joinsPerMinute: 20, createsPerMinute: 10 },
      cache: new PlatformCache(),
    });

  it('a ban placed through one process refuses the very next request through another, and lifting admits at once', async () => {
    const bans = new InMemoryBans();
    const [here, admin] = [process(bans), process(bans)];
    await here.assertNotBanned('mallory', now);
    await here.checks('join', 'mallory', now).decide();
    await admin.ban({ account: 'mallory' }, 'ops', now);
    await expect(here.assertNotBanned('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    await expect(here.checks('join', 'mallory', now).decide()).rejects.toBeInstanceOf(AccountBannedError);
    await expect(here.assertCommandAllowed('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    await admin.liftBan('mallory', 'ops', now);
    await expect(here.assertNotBanned('mallory', now)).resolves.toBeUndefined();
    await expect(here.checks('join', 'mallory', now).decide()).resolves.toBeUndefined();
  });

  it('a join its gate refused as banned is refused from memory (no claim) for at most 1 s; a lift here forgets it', async () => {
    const bans = new InMemoryBans();
    const count = jest.spyOn(bans.rates, 'count');
    let clockMs = 1_000;
    const here = new AbuseGuard({
      bans,
      rates: bans.rates,
      limits: { joinsPerMinute: 20, createsPerMinute: 10 },
      cache: new PlatformCache({ nowMs: () => clockMs }),
    });
    const elsewhere = process(bans);
    await elsewhere.ban({ account: 'mallory' }, 'ops', now);
    await expect(here.checks('join', 'mallory', now).decide()).rejects.toBeInstanceOf(AccountBannedError);
    await expect(here.checks('join', 'mallory', now).known()).rejects.toBeInstanceOf(AccountBannedError);
    // Creates hold no slot: they keep asking the gate, so a lift reaches them at once.
    await expect(here.checks('create', 'mallory', now).known()).resolves.toBeUndefined();
    await elsewhere.liftBan('mallory', 'ops', now);
    await expect(here.checks('join', 'mallory', now).known()).rejects.toBeInstanceOf(AccountBannedError);
    clockMs += 1_001;
    await expect(here.checks('join', 'mallory', now).known()).resolves.toBeUndefined();
    // Through the process that lifts it, at once.
    await elsewhere.ban({ account: 'mallory' }, 'ops', now);
    await expect(here.checks('join', 'mallory', now).decide()).rejects.toBeInstanceOf(AccountBannedError);
    await here.liftBan('mallory', 'ops', now);
    await expect(here.checks('join', 'mallory', now).known()).resolves.toBeUndefined();
    expect(count).toHaveBeenCalledTimes(2);
  });

  it('`decide` is the gate’s one write: no ban read beside it', async () => {
    const bans = new InMemoryBans();
    const find = jest.spyOn(bans, 'find');
    const count = jest.spyOn(bans.rates, 'count');
    await process(bans).checks('create', 'alice', now).decide();
    expect([find.mock.calls.length, count.mock.calls.length]).toEqual([0, 1]);
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
});
