import { PutCommand } from '@aws-sdk/lib-dynamodb';
import fc from 'fast-check';
import { AccountBannedError } from '../../../core/abuse/errors';
import { keys } from '../../../core/infra/keys';
import { platform as platformAdapters } from '../../../lambdas/dependencies';
import { startTestApi, type TestApi, type TestPlatform } from '../../helpers/platform';

let api: TestApi;
let platform: TestPlatform;
let call: TestApi['call'];
let admin: string;
let player: string;

beforeAll(async () => {
  api = await startTestApi();
  ({ platform, call } = api);
  admin = await platform.token('ops', ['admin']);
  player = await platform.token('alice');
});
afterAll(() => api.close());

const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();
const guard = () => platformAdapters().abuse;

describe('bans through the admin routes', () => {
  it('bans an account: its joins and creations are refused with BANNED; lifting the ban lets it back in', async () => {
    const created = await call('POST', '/v1/admin/bans', {
      token: admin,
      body: { account: 'mallory', reason: 'spam' },
    });
    expect(created.status).toBe(201);
    expect(created.body.ban).toEqual({
      account: 'mallory',
      reason: 'spam',
      createdAt: expect.any(String),
      createdBy: 'ops',
    });
    expect((await call('GET', '/v1/admin/bans/mallory', { token: admin })).body).toEqual(created.body);

    for (const attempt of [
      guard().assertJoinAllowed('mallory', new Date()),
      guard().assertCreateAllowed('mallory', new Date()),
    ]) {
      const error = await attempt.catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AccountBannedError);
      expect(error).toMatchObject({ code: 'BANNED', status: 403, message: 'This account is banned.' });
    }
    await expect(guard().assertJoinAllowed('bystander', new Date())).resolves.toBeUndefined();

    expect((await call('DELETE', '/v1/admin/bans/mallory', { token: admin })).status).toBe(204);
    await expect(guard().assertJoinAllowed('mallory', new Date())).resolves.toBeUndefined();
    expect((await call('GET', '/v1/admin/bans/mallory', { token: admin })).status).toBe(404);
    const again = await call('DELETE', '/v1/admin/bans/mallory', { token: admin });
    expect([again.status, again.body.error.code]).toEqual([404, 'NOT_FOUND']);
  });

  it('says until when a timed ban holds, and stops blocking once it has expired', async () => {
    const expiresAt = inOneHour();
    const created = await call('POST', '/v1/admin/bans', { token: admin, body: { account: 'eve', expiresAt } });
    expect([created.status, created.body.ban.expiresAt]).toEqual([201, expiresAt]);

    await expect(guard().assertJoinAllowed('eve', new Date())).rejects.toThrow(
      `This account is banned until ${expiresAt}.`,
    );
    // The same item, read after its expiry (TTL has not collected it): never blocks.
    await expect(guard().assertJoinAllowed('eve', new Date(Date.parse(expiresAt) + 1))).resolves.toBeUndefined();
  });

  it('ignores an expired ban item that TTL has not collected yet', async () => {
    const expiresAt = new Date(Date.now() - 60_000).toISOString();
    await platform.db.send(
      new PutCommand({
        TableName: platform.tableName,
        Item: {
          ...keys.ban('trent'),
          type: 'ban',
          account: 'trent',
          expiresAt,
          createdAt: '2026-01-01T00:00:00.000Z',
          createdBy: 'ops',
          ttl: Math.ceil(Date.parse(expiresAt) / 1000),
        },
      }),
    );
    await expect(guard().assertJoinAllowed('trent', new Date())).resolves.toBeUndefined();
    expect((await call('GET', '/v1/admin/bans/trent', { token: admin })).status).toBe(404);
    expect((await call('DELETE', '/v1/admin/bans/trent', { token: admin })).status).toBe(404);
  });

  it('spends none of a banned account’s allowance: after the ban is lifted it still has its 20 joins', async () => {
    const now = new Date('2030-06-01T00:00:10.000Z');
    await call('POST', '/v1/admin/bans', { token: admin, body: { account: 'oscar' } });
    const refused = await Promise.all(
      Array.from({ length: 25 }, () =>
        guard()
          .assertJoinAllowed('oscar', now)
          .catch((e: unknown) => (e as Error).name),
      ),
    );
    expect(new Set(refused)).toEqual(new Set(['AccountBannedError']));
    await call('DELETE', '/v1/admin/bans/oscar', { token: admin });
    const outcomes = await Promise.all(
      Array.from({ length: 21 }, () =>
        guard()
          .assertJoinAllowed('oscar', now)
          .then(
            () => 'allowed',
            (e: Error) => e.name,
          ),
      ),
    );
    expect(outcomes.filter((o) => o === 'allowed')).toHaveLength(20);
  });

  it('replaces an existing ban', async () => {
    await call('POST', '/v1/admin/bans', { token: admin, body: { account: 'peggy', reason: 'first' } });
    const expiresAt = inOneHour();
    await call('POST', '/v1/admin/bans', { token: admin, body: { account: 'peggy', expiresAt } });
    const got = await call('GET', '/v1/admin/bans/peggy', { token: admin });
    expect(got.body.ban).toEqual(expect.objectContaining({ expiresAt }));
    expect(got.body.ban).not.toHaveProperty('reason');
  });

  it('accepts identity-provider subjects as accounts, through the path too', async () => {
    const account = 'auth0|64f1c2@x';
    expect((await call('POST', '/v1/admin/bans', { token: admin, body: { account } })).status).toBe(201);
    const got = await call('GET', `/v1/admin/bans/${encodeURIComponent(account)}`, { token: admin });
    expect([got.status, got.body.ban.account]).toEqual([200, account]);
    await expect(guard().assertJoinAllowed(account, new Date())).rejects.toBeInstanceOf(AccountBannedError);
  });
});

describe('ban routes refuse what they must', () => {
  it.each([
    ['POST', '/v1/admin/bans'],
    ['GET', '/v1/admin/bans/mallory'],
    ['DELETE', '/v1/admin/bans/mallory'],
  ])('%s %s with a player token: 403 FORBIDDEN', async (method, path) => {
    const response = await call(method, path, {
      token: player,
      body: method === 'POST' ? { account: 'bob' } : undefined,
    });
    expect([response.status, response.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('a player cannot ban anyone, not even through a refused request', async () => {
    await call('POST', '/v1/admin/bans', { token: player, body: { account: 'bob' } });
    await expect(guard().assertJoinAllowed('bob', new Date())).resolves.toBeUndefined();
  });

  it.each([
    ['POST', '/v1/admin/bans'],
    ['GET', '/v1/admin/bans/mallory'],
    ['DELETE', '/v1/admin/bans/mallory'],
  ])('%s %s without a token: 401 UNAUTHORIZED', async (method, path) => {
    const response = await call(method, path, { body: method === 'POST' ? { account: 'bob' } : undefined });
    expect([response.status, response.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
  });

  it.each([
    ['body.account', {}],
    ['body.account', { account: '' }],
    ['body.account', { account: 'two words' }],
    ['body.account', { account: 42 }],
    ['body.reason', { account: 'bob', reason: 7 }],
    ['body.expiresAt', { account: 'bob', expiresAt: 'tomorrow' }],
    ['body.account', { account: '..' }],
    ['body.expiresAt', { account: 'bob', expiresAt: '2020-01-01T00:00:00Z' }],
    ['body.createdBy', { account: 'bob', createdBy: 'me' }],
  ])('refuses a body with a bad %s: 400 naming the field', async (field, body) => {
    const response = await call('POST', '/v1/admin/bans', { token: admin, body });
    expect([response.status, response.body.error.code]).toEqual([400, 'BAD_REQUEST']);
    const fields = response.body.error.details.fields as { field: string }[];
    expect(fields.length).toBeGreaterThan(0);
    expect(fields.map((f) => f.field)).toEqual(fields.map(() => field));
  });

  it('refuses a body that is not JSON, and an account path that is not one', async () => {
    expect((await call('POST', '/v1/admin/bans', { token: admin, rawBody: '{"account":' })).status).toBe(400);
    const response = await call('GET', '/v1/admin/bans/two%20words', { token: admin });
    expect([response.status, response.body.error.details.fields[0].field]).toEqual([400, 'path.account']);
  });

  it('answers 300 random bodies with 201 or a 4xx, never a 5xx; every 201 is a ban that reads back', async () => {
    const statuses: Record<number, number> = {};
    const isoDate = fc
      .date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString());
    const account = fc.oneof(fc.constantFrom('fuzz-a', 'auth0|fuzz', 'fuzz b', '', 'x'.repeat(300)), fc.string());
    const value = fc.oneof(fc.jsonValue(), isoDate, account);
    // Mostly well-shaped bodies with wrong values, so both 201 and 400 paths are exercised.
    const nearlyValid = fc.record(
      {
        account,
        reason: fc.oneof(fc.string({ minLength: 1 }), fc.jsonValue()),
        expiresAt: fc.oneof(isoDate, fc.string()),
      },
      { requiredKeys: ['account'] },
    );
    const anyKeys = fc.dictionary(
      fc.constantFrom('account', 'reason', 'expiresAt', 'extra', '__proto__', 'constructor'),
      value,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.oneof({ arbitrary: nearlyValid, weight: 3 }, { arbitrary: anyKeys, weight: 1 }),
        async (body) => {
          const response = await call('POST', '/v1/admin/bans', { token: admin, body });
          statuses[response.status] = (statuses[response.status] ?? 0) + 1;
          expect(response.status === 201 || (response.status >= 400 && response.status < 500)).toBe(true);
          if (response.status === 201) {
            const got = await call('GET', `/v1/admin/bans/${encodeURIComponent(response.body.ban.account)}`, {
              token: admin,
            });
            expect(got.body).toEqual(response.body);
          }
        },
      ),
      { numRuns: 300 },
    );
    process.stdout.write(`ban body fuzz, 300 bodies: ${JSON.stringify(statuses)} (expected no 5xx)\n`);
  });
});
