import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { AbuseRateLimitedError, JoinRateLimitedError, CreateRateLimitedError } from '../../../core/abuse/errors';
import { rateWindow } from '../../../core/abuse/rate-limit';
import { keys } from '../../../core/infra/keys';
import { platform as platformAdapters } from '../../../lambdas/dependencies';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

let platform: TestPlatform;

beforeAll(async () => {
  // The defaults under test: JOIN_RATE_LIMIT_PER_MINUTE 20, CREATE_RATE_LIMIT_PER_MINUTE 10.
  platform = await startTestPlatform();
});
afterAll(() => platform.close());

/** Half-way through a window: a refused caller is told to come back in 30 s. */
const midWindow = new Date('2030-01-01T00:00:30.000Z');
const nextWindow = new Date('2030-01-01T00:01:00.000Z');

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

async function storedCount(account: string, action: string, now: Date): Promise<unknown> {
  const { Item } = await platform.db.send(
    new GetCommand({
      TableName: platform.tableName,
      Key: keys.rateWindow(account, action, rateWindow(now, 60).startS),
      ConsistentRead: true,
    }),
  );
  return Item?.count;
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

    const expected = { allowed: 20, 'RATE_LIMITED after 30 s': 80 };
    process.stdout.write(
      `100 parallel joins, limit 20: ${JSON.stringify(tally(spammer))} (expected ${JSON.stringify(expected)})\n`,
    );
    process.stdout.write(
      `10 bystanders × 5 joins meanwhile: ${JSON.stringify(tally(bystanders))} (expected {"allowed":50})\n`,
    );
    expect(tally(spammer)).toEqual(expected);
    expect(tally(bystanders)).toEqual({ allowed: 50 });
    // Refused joins count nothing: the counter holds exactly the limit.
    expect(await storedCount('spammer', 'join', midWindow)).toBe(20);
  });

  it('answers the refusal as the API does: RATE_LIMITED, 429, Retry-After in whole seconds', async () => {
    const error = await platformAdapters()
      .abuse.assertJoinAllowed('spammer', new Date('2030-01-01T00:00:59.400Z'))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(JoinRateLimitedError);
    expect(error).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      headers: { 'Retry-After': '1' },
      details: { action: 'join', limit: 20, windowS: 60, retryAfterS: 1 },
    });
  });

  it('allows the account again in the next window, up to the limit once more', async () => {
    const { abuse } = platformAdapters();
    const outcomes = await Promise.all(
      Array.from({ length: 30 }, () => outcome(abuse.assertJoinAllowed('spammer', nextWindow))),
    );
    expect(tally(outcomes)).toEqual({ allowed: 20, 'RATE_LIMITED after 60 s': 10 });
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
      `40 parallel creations, limit 10: ${JSON.stringify(tally(creates))} (expected {"allowed":10,"RATE_LIMITED after 30 s":30})\n`,
    );
    expect(tally(creates)).toEqual({ allowed: 10, 'RATE_LIMITED after 30 s': 30 });
    expect(tally(joins)).toEqual({ allowed: 20 });
    await expect(abuse.assertCreateAllowed(account, midWindow)).rejects.toBeInstanceOf(CreateRateLimitedError);
    expect(await storedCount(account, 'create', midWindow)).toBe(10);
  });
});
