import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { AbuseRateLimitedError, JoinRateLimitedError, CreateRateLimitedError } from '../../../core/abuse/errors';
import { BanStore } from '../../../core/abuse/ban-store';
import { AbuseGuard } from '../../../core/abuse/guard';
import { PermitLeaseStore } from '../../../core/abuse/permit-lease-store';
import { leasedPermits, PermitLeases } from '../../../core/abuse/permit-leases';
import { RateLimitStore } from '../../../core/abuse/rate-limit-store';
import type { RateLimitPolicy } from '../../../core/abuse/rate-limit';
import { keys } from '../../../core/infra/keys';
import { platform as platformAdapters } from '../../../lambdas/dependencies';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';
import { busiestSpan } from '../../helpers/busiest-span';

let platform: TestPlatform;

beforeAll(async () => {
  // The defaults under test: JOIN_RATE_LIMIT_PER_MINUTE 20, CREATE_RATE_LIMIT_PER_MINUTE 10.
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

/** Every admission of a burst at this instant leaves the window 60 s later. */
const midWindow = new Date('2030-01-01T00:00:30.000Z');
const oneWindowLater = new Date('2030-01-01T00:01:30.000Z');

type Outcome = 'allowed' | `RATE_LIMITED after ${string} s`;

async function outcome(attempt: Promise<void>): Promise<Outcome> {
  try {
    await attempt;
    return 'allowed';
  } catch (error) {
    if (error instanceof AbuseRateLimitedError) return `RATE_LIMITED after ${error.headers?.['Retry-After']} s`;
    throw error;
  }
}

function tally(outcomes: readonly Outcome[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o] = (counts[o] ?? 0) + 1;
  return counts;
}

/** Admissions recorded in the account's log (its sequence number). */
async function storedAdmissions(account: string, action: string, limit: number): Promise<unknown> {
  const { Item } = await platform.db.send(
    new GetCommand({ TableName: platform.tableName, Key: keys.rateLog(account, action, limit), ConsistentRead: true }),
  );
  return Item?.n;
}

describe('join rate limit (RELIABILITY 12)', () => {
  it('lets exactly 20 of 100 parallel joins from one account through; the rest are 429 with Retry-After, and other accounts are unaffected at the same time', async () => {
    const { abuse } = platformAdapters();
    const others = Array.from({ length: 10 }, (_, i) => `bystander-${i}`);

    const [spammer, bystanders] = await Promise.all([
      Promise.all(Array.from({ length: 100 }, () => outcome(abuse.assertJoinAllowed('spammer', midWindow)))),
      Promise.all(
        others.flatMap((account) =>
          Array.from({ length: 5 }, () => outcome(abuse.assertJoinAllowed(account, midWindow))),
        ),
      ),
    ]);

    const expected = { allowed: 20, 'RATE_LIMITED after 60 s': 80 };
    process.stdout.write(
      `100 parallel joins, limit 20: ${JSON.stringify(tally(spammer))} (expected ${JSON.stringify(expected)})\n`,
    );
    process.stdout.write(
      `10 bystanders × 5 joins meanwhile: ${JSON.stringify(tally(bystanders))} (expected {"allowed":50})\n`,
    );
    expect(tally(spammer)).toEqual(expected);
    expect(tally(bystanders)).toEqual({ allowed: 50 });
    // Refused joins record nothing: this process's permit leases admitted 4 (no write), the
    // account's log holds exactly the rest of the limit (core/abuse/permit-leases.ts).
    expect(leasedPermits(20)).toBe(4);
    expect(await storedAdmissions('spammer', 'join', 16)).toBe(16);
  });

  it('answers the refusal as the API does: RATE_LIMITED, 429, Retry-After in whole seconds', async () => {
    const error = await platformAdapters()
      .abuse.assertJoinAllowed('spammer', new Date('2030-01-01T00:00:59.400Z'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JoinRateLimitedError);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      headers: { 'Retry-After': '31' },
      details: { action: 'join', limit: 20, windowS: 60, retryAfterS: 31 },
    });
  });

  it('allows the account again once its admissions have left the window, up to the limit once more', async () => {
    const { abuse } = platformAdapters();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () => outcome(abuse.assertJoinAllowed('spammer', oneWindowLater))),
    );
    expect(tally(outcomes)).toEqual({ allowed: 20, 'RATE_LIMITED after 60 s': 10 });
    await expect(abuse.assertJoinAllowed('spammer', new Date('2030-01-01T00:01:29.999Z'))).rejects.toBeInstanceOf(
      JoinRateLimitedError,
    );
  });
});

describe('create rate limit', () => {
  it('lets exactly 10 of 40 parallel creations through, on a counter of its own', async () => {
    const { abuse } = platformAdapters();
    const account = 'builder';
    const [creates, joins] = await Promise.all([
      Promise.all(Array.from({ length: 40 }, () => outcome(abuse.assertCreateAllowed(account, midWindow)))),
      Promise.all(Array.from({ length: 20 }, () => outcome(abuse.assertJoinAllowed(account, midWindow)))),
    ]);
    process.stdout.write(
      `40 parallel creations, limit 10: ${JSON.stringify(tally(creates))} (expected {"allowed":10,"RATE_LIMITED after 60 s":30})\n`,
    );
    expect(tally(creates)).toEqual({ allowed: 10, 'RATE_LIMITED after 60 s': 30 });
    expect(tally(joins)).toEqual({ allowed: 20 });
    await expect(abuse.assertCreateAllowed(account, midWindow)).rejects.toBeInstanceOf(CreateRateLimitedError);
    // As for joins: this process's create leases admitted 2 (no write), the log holds the rest.
    expect(leasedPermits(10)).toBe(2);
    expect(await storedAdmissions(account, 'create', 8)).toBe(8);
  });
});

/**
 * Creates take permit leases as joins do (core/abuse/permit-leases.ts): here two guards, as two
 * Lambda processes with their own memory, share one table and race for one account's creates.
 */
describe('create permit leases across processes', () => {
  const createPolicy: RateLimitPolicy = { action: 'create', limit: 10, windowS: 60 };
  const joinPolicy: RateLimitPolicy = { action: 'join', limit: 10, windowS: 60 };
  const base = Date.parse('2032-01-01T00:00:00.000Z');

  /** One process's guard, built as lambdas/dependencies.ts builds it; joins and creates share a limit here. */
  const lambdaProcess = () =>
    new AbuseGuard({
      bans: new BanStore(platform.db, platform.tableName),
      rates: new RateLimitStore(platform.db, platform.tableName),
      limits: { joinsPerMinute: 10, createsPerMinute: 10 },
      joinLeases: new PermitLeases(new PermitLeaseStore(platform.db, platform.tableName), joinPolicy),
      createLeases: new PermitLeases(new PermitLeaseStore(platform.db, platform.tableName), createPolicy),
    });
  /** The create handler's call: decided at once, or the promise. */
  const create = async (guard: AbuseGuard, account: string, at: Date) => guard.admitCreate(account, at);

  async function leaseHolders(policy: RateLimitPolicy): Promise<unknown[]> {
    const { Item } = await platform.db.send(
      new GetCommand({
        TableName: platform.tableName,
        Key: keys.permitLeases(policy.action, policy.limit),
        ConsistentRead: true,
      }),
    );
    return Array.from({ length: leasedPermits(policy.limit) }, (_, i) => (Item?.[`s${i}`] as { h?: string })?.h);
  }

  it('two processes admit 10 of 60 parallel creates from one account together, and joins of the same limit keep leases of their own', async () => {
    const processes = [lambdaProcess(), lambdaProcess()];
    const at = new Date(base + 30_000);
    const [creates, joins] = await Promise.all([
      Promise.all(Array.from({ length: 60 }, (_, i) => outcome(create(processes[i % 2]!, 'maker', at)))),
      Promise.all(Array.from({ length: 30 }, (_, i) => outcome(processes[i % 2]!.assertJoinAllowed('maker', at)))),
    ]);
    process.stdout.write(
      `60 parallel creations from two processes, limit 10: ${JSON.stringify(tally(creates))} (expected {"allowed":10,"RATE_LIMITED after 60 s":50})\n`,
    );
    expect(tally(creates)).toEqual({ allowed: 10, 'RATE_LIMITED after 60 s': 50 });
    expect(tally(joins)).toEqual({ allowed: 10, 'RATE_LIMITED after 60 s': 20 });
    const refused = await create(processes[0]!, 'maker', at).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(CreateRateLimitedError);
    expect(refused).toMatchObject({ details: { action: 'create', limit: 10, windowS: 60 } });
    // One process holds both create slots; the log holds the other 8 admissions.
    const [createHolders, joinHolders] = [await leaseHolders(createPolicy), await leaseHolders(joinPolicy)];
    expect(createHolders).toEqual([expect.any(String), createHolders[0]]);
    expect(joinHolders).toEqual([expect.any(String), joinHolders[0]]);
    expect(await storedAdmissions('maker', 'create', 8)).toBe(8);
    expect(await storedAdmissions('maker', 'join', 8)).toBe(8);
  });

  it('never admits more than 10 creates of one account in any 60 s span over 3 minutes of parallel bursts on two processes', async () => {
    const processes = [lambdaProcess(), lambdaProcess()];
    const bursts = Array.from({ length: 18 }, () => Math.floor(Math.random() * 180_000)).sort((a, b) => a - b);
    const admitted: number[] = [];
    for (const start of bursts) {
      const times = Array.from({ length: 12 }, () => base + 600_000 + start + Math.floor(Math.random() * 500));
      const results = await Promise.all(
        times.map((ms, i) => outcome(create(processes[i % 2]!, 'bursty', new Date(ms)))),
      );
      results.forEach((result, i) => result === 'allowed' && admitted.push(times[i]!));
    }
    process.stdout.write(
      `216 creations in 18 random bursts over 3 min on two processes: ${admitted.length} admitted, busiest 60 s span ${busiestSpan(admitted, 60)} (limit 10)\n`,
    );
    expect(busiestSpan(admitted, 60)).toBeLessThanOrEqual(10);
    expect(admitted.length).toBeGreaterThanOrEqual(10);
  });
});

/**
 * Issue 8, point 10: fixed windows let 2 × limit through across a boundary (40 joins in 2.3 s
 * against 20 a minute). Here several limiter instances (as separate Lambda processes, each with
 * its own cache) share one log in DynamoDB Local and race with hundreds of parallel requests.
 */
describe('sliding window under real concurrency (issue 8, point 10)', () => {
  const policy: RateLimitPolicy = { action: 'join', limit: 20, windowS: 60 };
  const base = Date.parse('2031-01-01T00:00:00.000Z');
  const processes = () => Array.from({ length: 6 }, () => new RateLimitStore(platform.db, platform.tableName));

  it('admits 20, not 40, of 300 parallel joins from six processes spread over 2.3 s across a minute boundary; bystanders unaffected', async () => {
    const stores = processes();
    // 58.85 s … 61.15 s after a whole minute: the old fixed window let 20 through on each side.
    const times = Array.from({ length: 300 }, (_, i) => base + 58_850 + Math.round((i * 2300) / 299));
    const [results, bystanders] = await Promise.all([
      Promise.all(times.map((ms, i) => stores[i % stores.length]!.count('boundary', policy, new Date(ms)))),
      Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          stores[i % stores.length]!.count(`neighbour-${i % 6}`, policy, new Date(times[i * 5]!)),
        ),
      ),
    ]);
    const admitted = times.filter((_, i) => results[i]!.state === 'Counted');
    process.stdout.write(
      `300 parallel joins over 2.3 s across a minute boundary, limit 20: ${admitted.length} admitted (fixed windows admitted 40)\n`,
    );
    expect(admitted.length).toBeLessThanOrEqual(20);
    expect(busiestSpan(admitted, 60)).toBeLessThanOrEqual(20);
    expect(admitted.length).toBe(20);
    expect(results.filter((r) => r.state === 'Contention')).toEqual([]);
    expect(bystanders.map((r) => r.state)).toEqual(Array.from({ length: 60 }, () => 'Counted'));
    expect(await storedAdmissions('boundary', 'join', 20)).toBe(20);
  });

  it('never admits more than 20 in any 60 s span over 3 minutes of parallel bursts at random instants', async () => {
    const stores = processes();
    // 24 bursts of 25 parallel requests at random instants over 3 minutes, in time order.
    const bursts = Array.from({ length: 24 }, () => Math.floor(Math.random() * 180_000)).sort((a, b) => a - b);
    const admitted: number[] = [];
    let refused = 0;
    for (const start of bursts) {
      const times = Array.from({ length: 25 }, () => base + 600_000 + start + Math.floor(Math.random() * 500));
      const results = await Promise.all(
        times.map((ms, i) => stores[i % stores.length]!.count('bursty', policy, new Date(ms))),
      );
      results.forEach((result, i) => {
        if (result.state === 'Counted') admitted.push(times[i]!);
        else refused++;
      });
    }
    process.stdout.write(
      `600 requests in 24 random bursts over 3 min: ${admitted.length} admitted, ${refused} refused, busiest 60 s span ${busiestSpan(admitted, 60)} (limit 20)\n`,
    );
    expect(busiestSpan(admitted, 60)).toBeLessThanOrEqual(20);
    expect(admitted.length).toBeGreaterThanOrEqual(20);
  });
});
