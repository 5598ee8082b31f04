import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { AbuseRateLimitedError, JoinRateLimitedError, CreateRateLimitedError } from '../../../core/abuse/errors';
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
async function storedAdmissions(account: string, action: string): Promise<unknown> {
  const { Item } = await platform.db.send(
    new GetCommand({ TableName: platform.tableName, Key: keys.accountGate(account, action), ConsistentRead: true }),
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
    // Refused joins record nothing: the account's log holds exactly the admitted ones.
    expect(await storedAdmissions('spammer', 'join')).toBe(20);
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
    expect(await storedAdmissions(account, 'create')).toBe(10);
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
    expect(await storedAdmissions('boundary', 'join')).toBe(20);
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
