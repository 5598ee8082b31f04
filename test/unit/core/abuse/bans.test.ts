import {
  banInForce,
  banRequestSchema,
  banTtl,
  gateBanInForce,
  gateBanOf,
  mirroredBanTtl,
  newBan,
} from '../../../../core/abuse/bans';
import { logTtl, type RateLimitPolicy } from '../../../../core/abuse/rate-limit';
import { RequestInvalidError } from '../../../../core/errors';

const now = new Date('2026-01-01T12:00:00.000Z');

describe('banInForce', () => {
  it.each([
    ['a permanent ban', undefined, true],
    ['a ban that ends later', '2026-01-01T12:00:00.001Z', true],
    ['a ban that ends exactly now', '2026-01-01T12:00:00.000Z', false],
    ['a ban that ended a moment ago', '2026-01-01T11:59:59.999Z', false],
    ['a ban that ended days ago (TTL is late)', '2025-12-29T00:00:00.000Z', false],
  ])('%s (expiresAt %p) → %p', (_name, expiresAt, expected) => {
    expect(banInForce({ expiresAt }, now)).toBe(expected);
  });
});

describe('newBan', () => {
  it('records who placed the ban and when, without an expiry when none is given', () => {
    expect(newBan({ account: 'mallory' }, 'ops', now)).toEqual({
      account: 'mallory',
      createdAt: '2026-01-01T12:00:00.000Z',
      createdBy: 'ops',
    });
  });

  it.each([
    ['UTC', '2026-01-02T00:00:00Z', '2026-01-02T00:00:00.000Z'],
    ['an offset', '2026-01-02T02:00:00+02:00', '2026-01-02T00:00:00.000Z'],
    ['one millisecond ahead', '2026-01-01T12:00:00.001Z', '2026-01-01T12:00:00.001Z'],
  ])('accepts an expiry in the future given in %s and stores it as UTC', (_name, expiresAt, stored) => {
    expect(newBan({ account: 'mallory', reason: 'spam', expiresAt }, 'ops', now)).toMatchObject({
      reason: 'spam',
      expiresAt: stored,
    });
  });

  it.each([
    ['now', '2026-01-01T12:00:00.000Z'],
    ['the past', '2025-06-01T00:00:00Z'],
    ['the past, by offset', '2026-01-01T13:00:00+02:00'],
  ])('refuses an expiry at %s with 400 naming body.expiresAt', (_name, expiresAt) => {
    const attempt = () => newBan({ account: 'mallory', expiresAt }, 'ops', now);
    expect(attempt).toThrow(RequestInvalidError);
    expect(attempt).toThrow(
      expect.objectContaining({ details: { fields: [expect.objectContaining({ field: 'body.expiresAt' })] } }),
    );
  });
});

describe('banTtl', () => {
  it.each([
    ['a permanent ban is never collected', undefined, undefined],
    ['a timed ban is collected from its expiry', '2026-01-02T00:00:00.000Z', 1767312000],
    ['rounds a fraction up, so TTL never precedes the expiry', '2026-01-02T00:00:00.500Z', 1767312001],
  ])('%s', (_name, expiresAt, expected) => {
    expect(banTtl({ expiresAt })).toBe(expected);
  });
});

describe('gateBanOf / gateBanInForce: the ban as a gate item carries it', () => {
  it.each([
    ['a permanent ban', undefined, {}],
    ['a ban that ends later', '2026-01-01T12:00:00.001Z', { expiresAt: '2026-01-01T12:00:00.001Z' }],
    ['a ban that ends exactly now', '2026-01-01T12:00:00.000Z', undefined],
    ['a ban that ended days ago', '2025-12-29T00:00:00.000Z', undefined],
  ])('%s (expiresAt %p) → %p, as banInForce judges it', (_name, expiresAt, expected) => {
    const mirrored = gateBanOf({ expiresAt });
    expect(gateBanInForce(mirrored, now)).toEqual(expected);
    expect(gateBanInForce(mirrored, now) !== undefined).toBe(banInForce({ expiresAt }, now));
  });

  it('reads no ban from a gate that has none, or a malformed one', () => {
    expect(gateBanInForce(undefined, now)).toBeUndefined();
    expect(gateBanInForce({ until: 'soon' }, now)).toBeUndefined();
  });
});

describe('mirroredBanTtl: TTL never collects a gate before its ban ends, nor before its log does', () => {
  const policy: RateLimitPolicy = { action: 'join', limit: 20, windowS: 60 };
  const logEnd = logTtl(now, policy);

  it('a permanent ban: no TTL at all', () => {
    expect(mirroredBanTtl({}, policy, now)).toBeUndefined();
  });

  it('a long ban: its end', () => {
    const expiresAt = '2026-01-08T12:00:00.500Z';
    expect(mirroredBanTtl({ expiresAt }, policy, now)).toBe(Math.ceil(Date.parse(expiresAt) / 1000));
  });

  it('a ban shorter than the log: the log’s end, so admissions made just before the ban keep counting', () => {
    const expiresAt = '2026-01-01T12:00:10.000Z';
    expect(mirroredBanTtl({ expiresAt }, policy, now)).toBe(logEnd);
    expect(logEnd).toBeGreaterThan(Date.parse(expiresAt) / 1000);
  });
});

describe('banRequestSchema', () => {
  it.each([
    ['account', { reason: 'x' }],
    ['account', { account: '' }],
    ['account', { account: 'has space' }],
    ['account', { account: 'x'.repeat(257) }],
    ['expiresAt', { account: 'a', expiresAt: 'tomorrow' }],
    ['expiresAt', { account: 'a', expiresAt: '2026-02-30T00:00:00Z' }],
    ['expiresAt', { account: 'a', expiresAt: 1767312000 }],
    ['reason', { account: 'a', reason: '' }],
    ['reason', { account: 'a', reason: 42 }],
    ['createdBy', { account: 'a', createdBy: 'me' }],
  ])('refuses a body whose %s is wrong', (field, body) => {
    const result = banRequestSchema.safeParse(body);
    expect(result.success).toBe(false);
    const named = result.error!.issues.map((i) => (i.code === 'unrecognized_keys' ? i.keys : i.path).join('.'));
    expect(named).toContain(field);
  });

  it.each(['auth0|64f1c2', 'google-oauth2|1234', '0b7a6e7e-1d1c-4c43-9f39-1a2b3c4d5e6f', 'alice@example.com'])(
    'accepts the token subject %s as an account',
    (account) => {
      expect(banRequestSchema.safeParse({ account }).success).toBe(true);
    },
  );
});
