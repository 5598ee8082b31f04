import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { deriveIdempotencyKey, open, seal } from '../../../../core/idempotency/cipher';
import {
  hashIdempotencyKey,
  isFinalAnswer,
  parseIdempotencyKey,
  requestFingerprint,
} from '../../../../core/idempotency/record';
import { IdempotencyStore, idempotencyConditions } from '../../../../core/idempotency/store';

describe('parseIdempotencyKey', () => {
  it.each([
    ['empty', ''],
    ['65 characters', 'k'.repeat(65)],
    ['a control character', 'a\u0001b'],
    ['a newline', 'a\nb'],
    ['DEL', 'a\u007fb'],
    ['non-ASCII', 'clé'],
  ])('refuses a key that is %s: 400 naming the header', (_name, key) => {
    expect(() => parseIdempotencyKey(key)).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        details: { fields: [expect.objectContaining({ field: 'header.idempotency-key' })] },
      }),
    );
  });

  it.each([['a'], ['k'.repeat(64)], ['order 17 / retry #2'], ['550e8400-e29b-41d4-a716-446655440000']])(
    'accepts %p',
    (key) => expect(parseIdempotencyKey(key)).toBe(key),
  );

  it('lets a request without the header through', () => expect(parseIdempotencyKey(undefined)).toBeUndefined());
});

describe('requestFingerprint', () => {
  it('is the same for the same operation, parameters and body, whatever the key order', () => {
    expect(
      requestFingerprint('createRoom', undefined, { gameId: 'g', settings: { a: 1, b: [1, { c: 2, d: 3 }] } }),
    ).toBe(requestFingerprint('createRoom', undefined, { settings: { b: [1, { d: 3, c: 2 }], a: 1 }, gameId: 'g' }));
  });

  it.each([
    ['another operation', 'matchmakingJoin', { roomId: 'r1' }, {}],
    ['another room', 'joinRoom', { roomId: 'r2' }, {}],
    ['another body', 'joinRoom', { roomId: 'r1' }, { x: 1 }],
  ])('differs for %s', (_name, operation, params, body) => {
    expect(requestFingerprint(operation, params, body)).not.toBe(requestFingerprint('joinRoom', { roomId: 'r1' }, {}));
  });

  it('hashes the client key (the sort key never holds the client string)', () => {
    expect(hashIdempotencyKey('order-17')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(hashIdempotencyKey('order-17')).not.toContain('order');
  });
});

describe('isFinalAnswer', () => {
  it.each([
    [200, true],
    [201, true],
    [202, true],
    [400, true],
    [404, true],
    [409, true],
    [412, true],
    [401, false],
    [403, false],
    [429, false],
    [500, false],
    [502, false],
    [503, false],
    [504, false],
  ])('%i → %p', (status, final) => expect(isFinalAnswer(status)).toBe(final));
});

describe('the answer cipher', () => {
  const key = deriveIdempotencyKey(Buffer.alloc(32, 7));

  it('derives a 256-bit key that depends on the secret', () => {
    expect(key).toHaveLength(32);
    expect(deriveIdempotencyKey(Buffer.alloc(32, 8)).equals(key)).toBe(false);
  });

  it('round-trips, hides the plaintext, and refuses another record, another key or a changed byte', () => {
    const sealed = seal(key, '{"key":"registration-secret"}', 'ACCOUNT#a\nIDEMPOTENCY#x\nfp');
    expect(sealed).not.toContain('registration-secret');
    expect(open(key, sealed, 'ACCOUNT#a\nIDEMPOTENCY#x\nfp')).toBe('{"key":"registration-secret"}');
    expect(() => open(key, sealed, 'ACCOUNT#b\nIDEMPOTENCY#x\nfp')).toThrow();
    expect(() => open(deriveIdempotencyKey(Buffer.alloc(32, 8)), sealed, 'ACCOUNT#a\nIDEMPOTENCY#x\nfp')).toThrow();
    const parts = sealed.split('.');
    const tampered = [...parts.slice(0, 3), `${parts[3]!.slice(0, -2)}AA`].join('.');
    expect(() => open(key, tampered, 'ACCOUNT#a\nIDEMPOTENCY#x\nfp')).toThrow();
  });
});

describe('IdempotencyStore.claim', () => {
  const dbMock = mockClient(DynamoDBDocumentClient);
  afterAll(() => dbMock.restore());

  it('claims with one conditional put whose condition reads aloud, judged against now', async () => {
    dbMock.reset();
    dbMock.on(PutCommand).resolves({});
    const store = new IdempotencyStore(
      DynamoDBDocumentClient.from(new DynamoDBClient({ region: 'us-east-1' })),
      'table',
      async () => Buffer.alloc(32),
    );
    const now = new Date('2026-01-01T00:00:00.000Z');
    const result = await store.claim({ account: 'alice', keyHash: 'h', fingerprint: 'f' }, now);
    expect(result.state).toBe('Claimed');
    const input = dbMock.commandCalls(PutCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      Item: {
        pk: 'ACCOUNT#alice',
        sk: 'IDEMPOTENCY#h',
        status: 'inProgress',
        fingerprint: 'f',
        expiresAtMs: now.getTime() + 600_000,
        leaseUntilMs: now.getTime() + 60_000,
      },
      ConditionExpression:
        'attribute_not_exists(pk) OR expiresAtMs <= :now OR (#status = :inProgress AND leaseUntilMs <= :now)',
      ExpressionAttributeValues: { ':now': now.getTime(), ':inProgress': 'inProgress' },
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    expect(idempotencyConditions.claimIsOurs).toBe('claimId = :claimId');
  });
});
