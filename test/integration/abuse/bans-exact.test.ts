import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { BanStore } from '../../../core/abuse/ban-store';
import { AccountBannedError } from '../../../core/abuse/errors';
import { AbuseGuard } from '../../../core/abuse/guard';
import { RateLimitStore } from '../../../core/abuse/rate-limit-store';
import { createDocumentClient } from '../../../core/infra/aws-clients';
import { keys } from '../../../core/infra/keys';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { emulatorEndpoints, startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * A ban is decided by the account's gate write (core/abuse/rate-limit-store.ts), onto which
 * placing it mirrors it in one transaction: it takes effect exactly, at once, in every
 * process. Here each "process" (a Lambda instance deployed) has its own guard, cache and
 * DynamoDB client, on one DynamoDB Local table.
 */
let platform: TestPlatform;
const clients: DynamoDBDocumentClient[] = [];

beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  for (const client of clients) client.destroy();
  await platform.close();
});

/** One process, counting the DynamoDB requests its client sends. */
function lambdaProcess() {
  const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: emulatorEndpoints().dynamodb });
  clients.push(db);
  const sent: string[] = [];
  db.middlewareStack.add(
    (next, context) => async (args) => {
      sent.push(context.commandName ?? '?');
      return next(args);
    },
    // Inside the SDK's retry layer: every attempt sent counts.
    { step: 'finalizeRequest', priority: 'low', name: 'countRequests' },
  );
  const cache = new PlatformCache();
  const guard = new AbuseGuard({
    bans: new BanStore(db, platform.tableName),
    rates: new RateLimitStore(db, platform.tableName, cache),
    limits: { joinsPerMinute: 5, createsPerMinute: 5, commandsPerMinute: 5, messagePollsPerMinute: 5 },
    cache,
  });
  return { guard, sent };
}

const anAccount = () => `player-${randomUUID().slice(0, 8)}`;

/** Each counted path of a request, as its handler calls the guard. */
const paths = {
  join: (guard: AbuseGuard, account: string, now: Date) => guard.checks('join', account, now).decide(),
  create: (guard: AbuseGuard, account: string, now: Date) => guard.checks('create', account, now).decide(),
  command: (guard: AbuseGuard, account: string, now: Date) => guard.assertCommandAllowed(account, now),
  messagePoll: (guard: AbuseGuard, account: string, now: Date) => guard.assertMessagePollAllowed(account, now),
} as const;

async function admissionsOf(account: string, action: string): Promise<unknown> {
  const { Item } = await platform.db.send(
    new GetCommand({ TableName: platform.tableName, Key: keys.accountGate(account, action), ConsistentRead: true }),
  );
  return Item?.n;
}

describe('bans are exact across processes', () => {
  it.each(Object.keys(paths) as (keyof typeof paths)[])(
    'a ban placed through A refuses the very next %s through B, and its lifting admits the next one at once',
    async (path) => {
      const [a, b] = [lambdaProcess(), lambdaProcess()];
      const account = anAccount();
      const now = () => new Date();
      // B has admitted the account a moment ago: whatever it remembers is of an unbanned account.
      await paths[path](b.guard, account, now());
      await a.guard.ban({ account }, 'ops', now());
      await expect(paths[path](b.guard, account, now())).rejects.toBeInstanceOf(AccountBannedError);
      await a.guard.liftBan(account, 'ops', now());
      await expect(paths[path](b.guard, account, now())).resolves.toBeUndefined();
    },
  );

  it('a lifted ban admits at once in a process that had just been refused by it', async () => {
    const [a, b] = [lambdaProcess(), lambdaProcess()];
    const account = anAccount();
    await a.guard.ban({ account }, 'ops', new Date());
    await expect(paths.create(b.guard, account, new Date())).rejects.toBeInstanceOf(AccountBannedError);
    await a.guard.liftBan(account, 'ops', new Date());
    await expect(paths.create(b.guard, account, new Date())).resolves.toBeUndefined();
    await expect(paths.command(b.guard, account, new Date())).resolves.toBeUndefined();
  });

  it('a banned account spends no allowance: its log holds the admissions it had, and after the lift the rest of them', async () => {
    const [a, b] = [lambdaProcess(), lambdaProcess()];
    const account = anAccount();
    const now = new Date();
    await paths.join(b.guard, account, now);
    await paths.join(b.guard, account, now);
    const expiresAt = new Date(now.getTime() + 3_600_000).toISOString();
    await a.guard.ban({ account, expiresAt }, 'ops', now);
    const refused = await Promise.all(
      Array.from({ length: 10 }, () => paths.join(b.guard, account, now).catch((e: unknown) => e)),
    );
    expect(refused.every((e) => e instanceof AccountBannedError && e.expiresAt === expiresAt)).toBe(true);
    expect(await admissionsOf(account, 'join')).toBe(2);
    await a.guard.liftBan(account, 'ops', now);
    const outcomes = await Promise.all(
      Array.from({ length: 5 }, () =>
        paths.join(b.guard, account, now).then(
          () => 'admitted',
          (e: Error) => e.name,
        ),
      ),
    );
    expect(outcomes.filter((o) => o === 'admitted')).toHaveLength(3);
    expect(await admissionsOf(account, 'join')).toBe(5);
  });

  it('a join’s account checks (`decide`) send exactly one DynamoDB request, banned or not', async () => {
    const [a, b] = [lambdaProcess(), lambdaProcess()];
    const [admitted, banned] = [anAccount(), anAccount()];
    await a.guard.ban({ account: banned }, 'ops', new Date());
    for (const account of [admitted, banned]) {
      b.sent.length = 0;
      await paths.join(b.guard, account, new Date()).catch(() => undefined);
      expect(b.sent).toEqual(['UpdateItemCommand']);
    }
  });
});
