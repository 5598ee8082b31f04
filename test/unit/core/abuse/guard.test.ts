import { AbuseGuard } from '../../../../core/abuse/guard';
import { BanSnapshot } from '../../../../core/abuse/ban-snapshot';
import type { BanDirectory, Bans } from '../../../../core/abuse/ban-store';
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
import { leasedPermits, PermitLeases } from '../../../../core/abuse/permit-leases';
import { InMemoryBans } from '../../../helpers/fakes/bans';
import { InMemoryLeaseStore } from '../../../helpers/fakes/permit-leases';
import { InMemoryRateLimits } from '../../../helpers/fakes/rate-limits';

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

describe('AbuseGuard.assertMessagePollAllowed', () => {
  it('counts against the message poll limit (default 120 per 60 s)', async () => {
    const { guard, counted } = guardWith();
    await expect(guard.assertMessagePollAllowed('alice', now)).resolves.toBeUndefined();
    expect(counted).toEqual([{ account: 'alice', policy: { action: 'messagePoll', limit: 120, windowS: 60 } }]);
  });

  it('throws MessagePollRateLimitedError: 429 RATE_LIMITED with Retry-After, naming message polls', async () => {
    const { guard } = guardWith({ count: { state: 'Exhausted', retryAfterS: 12 } });
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

describe('AbuseGuard.admitCreate: create permit leases', () => {
  const limits = { joinsPerMinute: 20, createsPerMinute: 10 };
  const createPolicy: RateLimitPolicy = { action: 'create', limit: 10, windowS: 60 };

  /** One process's guard; processes given the same stores share the table, as Lambdas do. */
  function guardProcess(
    stores = { bans: new InMemoryBans(), rates: new InMemoryRateLimits(), leases: new InMemoryLeaseStore() },
  ) {
    const directory = jest.spyOn(stores.bans, 'directory');
    const count = jest.spyOn(stores.rates, 'count');
    const guard = new AbuseGuard({
      bans: stores.bans,
      rates: stores.rates,
      limits,
      createLeases: new PermitLeases(stores.leases, createPolicy),
    });
    /** Requests this process made of the stores so far. */
    const requests = () =>
      directory.mock.calls.length +
      count.mock.calls.length +
      stores.leases.requests.filter((r) => r.policy === createPolicy).length;
    return { guard, stores, count, requests };
  }

  /** What a create handler gets: admitted, or the error, whether decided at once or later. */
  async function admitCreate(guard: AbuseGuard, account: string, at: Date): Promise<'admitted' | unknown> {
    try {
      await guard.admitCreate(account, at);
      return 'admitted';
    } catch (error) {
      return error;
    }
  }

  const at = (ms: number) => new Date(now.getTime() + ms);

  it('admits a warm create from memory, with no request and no promise, while a lease admits the account', async () => {
    const { guard, count, requests } = guardProcess();
    // Another account's create reads the bans and takes this process's leases.
    await guard.assertCreateAllowed('bob', now);
    const warm = requests();

    expect(leasedPermits(10)).toBe(2);
    expect(guard.admitCreate('alice', at(100))).toBeUndefined();
    expect(guard.admitCreate('alice', at(200))).toBeUndefined();
    expect(requests()).toBe(warm);

    // Alice's leased permits are spent: the third goes to her log, the log's share of the limit.
    const third = guard.admitCreate('alice', at(300));
    expect(third).toBeInstanceOf(Promise);
    await expect(third).resolves.toBeUndefined();
    expect(count).toHaveBeenLastCalledWith('alice', { action: 'create', limit: 8, windowS: 60 }, at(300));
  });

  it('refuses a banned account synchronously, spending nothing of its allowance', async () => {
    const { guard, stores, count, requests } = guardProcess();
    await stores.bans.put(ban());
    await guard.assertCreateAllowed('bob', now);
    const warm = requests();

    expect(() => guard.admitCreate('mallory', at(100))).toThrow(AccountBannedError);
    expect(requests()).toBe(warm);
    // Its leased permits are still whole: once unbanned here, both admit from memory.
    await guard.liftBan('mallory', 'ops', at(100));
    expect(guard.admitCreate('mallory', at(200))).toBeUndefined();
    expect(guard.admitCreate('mallory', at(300))).toBeUndefined();
    expect(count.mock.calls.filter(([account]) => account === 'mallory')).toEqual([]);
  });

  it('falls back to the promise when the ban snapshot is stale, and it refuses a ban placed meanwhile elsewhere', async () => {
    const shared = { bans: new InMemoryBans(), rates: new InMemoryRateLimits(), leases: new InMemoryLeaseStore() };
    const { guard } = guardProcess(shared);
    await guard.assertCreateAllowed('bob', now);

    const stale = guard.admitCreate('alice', at(2_000));
    expect(stale).toBeInstanceOf(Promise);
    await expect(stale).resolves.toBeUndefined();

    // Another process (the admin API's Lambda) bans mallory: this one learns it from its refresh.
    await shared.bans.put(ban());
    const refused = guard.admitCreate('mallory', at(4_000));
    expect(refused).toBeInstanceOf(Promise);
    await expect(refused).rejects.toBeInstanceOf(AccountBannedError);
  });

  it('falls back to the promise before this process holds its leases', async () => {
    const { guard } = guardProcess();
    await guard.assertNotBanned('bob', now);
    const first = guard.admitCreate('alice', at(100));
    expect(first).toBeInstanceOf(Promise);
    await expect(first).resolves.toBeUndefined();
    expect(guard.admitCreate('alice', at(200))).toBeUndefined();
  });

  it('admits 10 creates of one account in 60 s across the leased and logged shares, and refuses the 11th stating the whole limit', async () => {
    const { guard } = guardProcess();
    await guard.assertCreateAllowed('bob', now);
    const outcomes = [];
    for (let i = 1; i <= 15; i++) outcomes.push(await admitCreate(guard, 'alice', at(i * 1_000)));

    expect(outcomes.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => 'admitted'));
    expect(outcomes[10]).toBeInstanceOf(CreateRateLimitedError);
    expect(outcomes[10]).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      details: { action: 'create', limit: 10, windowS: 60 },
    });
    expect(outcomes.slice(11).every((o) => o instanceof CreateRateLimitedError)).toBe(true);
    // Once the first create has left the window, one more is admitted.
    expect(await admitCreate(guard, 'alice', at(61_000))).toBe('admitted');
  });

  it('never admits more than the limit in any 60 s span to one account served by two processes sharing the stores', async () => {
    const shared = { bans: new InMemoryBans(), rates: new InMemoryRateLimits(), leases: new InMemoryLeaseStore() };
    const processes = [guardProcess(shared), guardProcess(shared)];
    const admitted: number[] = [];
    // Five minutes, a create every 500 ms, alternating between the processes.
    for (let t = 0; t < 5 * 60_000; t += 500) {
      const serving = processes[(t / 500) % 2]!;
      if ((await admitCreate(serving.guard, 'alice', at(t))) === 'admitted') admitted.push(t);
    }
    const busiest = Math.max(...admitted.map((from) => admitted.filter((t) => t >= from && t < from + 60_000).length));
    expect(busiest).toBe(10);
    expect(admitted.length).toBeGreaterThanOrEqual(5 * 8);
  });
});

describe('AbuseGuard.keepBansFresh', () => {
  beforeEach(() => jest.useFakeTimers({ now }));
  afterEach(() => jest.useRealTimers());

  it('refreshes the ban snapshot at once and every 500 ms until aborted, so a create after a quiet spell needs no read', async () => {
    const bans = new InMemoryBans();
    const directory = jest.spyOn(bans, 'directory');
    const guard = new AbuseGuard({
      bans,
      rates: new InMemoryRateLimits(),
      limits: { joinsPerMinute: 20, createsPerMinute: 10 },
    });
    const stop = new AbortController();
    guard.keepBansFresh({ now: () => new Date(), signal: stop.signal });

    await jest.advanceTimersByTimeAsync(0);
    expect(directory).toHaveBeenCalledTimes(1);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(directory).toHaveBeenCalledTimes(21);
    // A ban placed elsewhere is seen without any request asking for it.
    await bans.put(ban());
    await jest.advanceTimersByTimeAsync(500);
    expect(() => guard.admitCreate('mallory', new Date())).toThrow(AccountBannedError);

    stop.abort();
    await jest.advanceTimersByTimeAsync(10_000);
    expect(directory).toHaveBeenCalledTimes(22);
  });
});

describe('BanSnapshot.keepFresh', () => {
  beforeEach(() => jest.useFakeTimers({ now }));
  afterEach(() => jest.useRealTimers());

  it('keeps refreshing through failed reads, reporting each run of failures once', async () => {
    const bans = new InMemoryBans();
    const failure = new Error('ProvisionedThroughputExceededException');
    const directory = jest
      .spyOn(bans, 'directory')
      .mockRejectedValueOnce(failure)
      .mockRejectedValueOnce(failure)
      .mockRejectedValueOnce(failure);
    const snapshot = new BanSnapshot(bans);
    const reportFailure = jest.fn();
    const stop = new AbortController();
    snapshot.keepFresh({ now: () => new Date(), signal: stop.signal, intervalMs: 200, reportFailure });

    await jest.advanceTimersByTimeAsync(400);
    expect(directory).toHaveBeenCalledTimes(3);
    expect(snapshot.peek('alice', new Date())).toEqual({ state: 'stale', knownBanned: false });
    expect(reportFailure).toHaveBeenCalledTimes(1);
    expect(reportFailure).toHaveBeenCalledWith(failure);

    await jest.advanceTimersByTimeAsync(200);
    expect(snapshot.peek('alice', new Date())).toEqual({ state: 'fresh', ban: undefined });

    directory.mockRejectedValueOnce(failure);
    await jest.advanceTimersByTimeAsync(200);
    expect(reportFailure).toHaveBeenCalledTimes(2);
    stop.abort();
    await jest.advanceTimersByTimeAsync(1_000);
    expect(directory).toHaveBeenCalledTimes(5);
  });

  it('does nothing when started already aborted', async () => {
    const bans = new InMemoryBans();
    const directory = jest.spyOn(bans, 'directory');
    new BanSnapshot(bans).keepFresh({ now: () => new Date(), signal: AbortSignal.abort() });
    await jest.advanceTimersByTimeAsync(1_000);
    expect(directory).not.toHaveBeenCalled();
  });
});
