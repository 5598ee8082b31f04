import { AbuseGuard } from '../../../../core/abuse/guard';
import type { BanDirectory, Bans } from '../../../../core/abuse/ban-store';
import type { Ban } from '../../../../core/abuse/bans';
import {
  AccountBannedError,
  BanNotFoundError,
  CreateRateLimitedError,
  JoinRateLimitedError,
} from '../../../../core/abuse/errors';
import type { RateCountResult, RateLimits } from '../../../../core/abuse/rate-limit-store';
import type { RateLimitPolicy } from '../../../../core/abuse/rate-limit';

const now = new Date('2026-01-01T12:00:30.000Z');

/** Stores that answer what the case says and record what they were asked. */
function guardWith(options: { ban?: Ban; count?: RateCountResult } = {}) {
  const counted: { account: string; policy: RateLimitPolicy }[] = [];
  let listed = options.ban;
  let epoch = 0;
  const bans = {
    find: jest.fn(async () => options.ban),
    directory: jest.fn(async (): Promise<BanDirectory> => {
      const all = new Map<string, { expiresAt?: string }>();
      if (listed) all.set(listed.account, listed.expiresAt ? { expiresAt: listed.expiresAt } : {});
      return { epoch, bans: all };
    }),
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
  });
  /** Another process places a ban: the directory lists it from now on. */
  const banElsewhere = (placed: Ban) => {
    listed = placed;
    epoch++;
  };
  return { guard, bans, counted, banElsewhere };
}

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
    const { guard } = guardWith({ count: { state: 'Exhausted', retryAfterS: 30 } });
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

  it("refuses a create with 403 BANNED, counting nothing, when the process's older snapshot knew the ban", async () => {
    const { guard, counted } = guardWith({ ban: ban() });
    await expect(guard.assertNotBanned('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    // Two seconds on, the snapshot is too old to answer but still knows the ban.
    const later = new Date(now.getTime() + 2_000);
    await expect(guard.assertCreateAllowed('mallory', later)).rejects.toBeInstanceOf(AccountBannedError);
    expect(counted).toEqual([]);
  });

  it('counts a create while the stale snapshot refreshes, and refuses one banned meanwhile elsewhere', async () => {
    const { guard, bans, counted, banElsewhere } = guardWith();
    let release: () => void = () => undefined;
    const refreshed = new Promise<void>((resolve) => (release = resolve));
    bans.directory.mockImplementationOnce(async () => {
      await refreshed;
      return { epoch: 0, bans: new Map() };
    });
    const first = guard.assertCreateAllowed('alice', now);
    // Counted before the refresh it runs beside has answered.
    await new Promise((resolve) => setImmediate(resolve));
    expect(counted).toHaveLength(1);
    release();
    await expect(first).resolves.toBeUndefined();

    banElsewhere(ban());
    const later = new Date(now.getTime() + 2_000);
    const error = await guard.assertCreateAllowed('mallory', later).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AccountBannedError);
  });

  it('lets an expired ban through (TTL may not have collected it yet)', async () => {
    const { guard, counted } = guardWith({ ban: ban('2026-01-01T12:00:30.000Z') });
    await expect(guard.assertCreateAllowed('mallory', now)).resolves.toBeUndefined();
    expect(counted).toHaveLength(1);
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

describe('the ban snapshot (issue 9: no sequential round trip on the hot path)', () => {
  it('reads the ban directory at most once per second for every account, so a ban placed by another process takes effect within 1 s', async () => {
    const { guard, bans, banElsewhere } = guardWith();
    await guard.assertNotBanned('mallory', now);
    await guard.assertNotBanned('mallory', new Date(now.getTime() + 499));
    await guard.assertNotBanned('someone-else', new Date(now.getTime() + 499));
    expect(bans.directory).toHaveBeenCalledTimes(1);
    expect(bans.find).not.toHaveBeenCalled();
    banElsewhere(ban());
    await expect(guard.assertNotBanned('mallory', new Date(now.getTime() + 1_000))).rejects.toBeInstanceOf(
      AccountBannedError,
    );
  });

  it('a ban placed through this guard takes effect at once, and so does lifting it', async () => {
    const { guard, bans } = guardWith();
    await guard.assertNotBanned('mallory', now);
    await guard.ban({ account: 'mallory' }, 'ops', now);
    await expect(guard.assertNotBanned('mallory', now)).rejects.toBeInstanceOf(AccountBannedError);
    bans.delete.mockResolvedValue(ban());
    await guard.liftBan('mallory', 'ops', now);
    await expect(guard.assertNotBanned('mallory', now)).resolves.toBeUndefined();
  });
});
