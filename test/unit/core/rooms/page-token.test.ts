import { decodePageToken, encodePageToken } from '../../../../core/rooms/page-token';

const partition = 'LIVE#arena#1#us-east-1';
const issued = { pk: 'ROOM#r-1', sk: 'ROOM', gsi2pk: partition, gsi2sk: '2026-01-01T00:00:00.000Z#r-1' };
const token = (key: unknown) => Buffer.from(JSON.stringify(key)).toString('base64url');

describe('decodePageToken', () => {
  it('gives back the key it encoded, and nothing for no token', () => {
    expect(decodePageToken(encodePageToken(issued), partition)).toEqual(issued);
    expect(decodePageToken(undefined, partition)).toBeUndefined();
    expect(decodePageToken('', partition)).toBeUndefined();
  });

  it.each<[string, unknown]>([
    ['empty keys', { pk: '', sk: '', gsi2pk: partition, gsi2sk: '' }],
    ['an empty room id', { ...issued, pk: 'ROOM#', gsi2sk: '2026-01-01T00:00:00.000Z#' }],
    ['an empty index sort key', { ...issued, gsi2sk: '' }],
    ['another item kind', { ...issued, pk: 'ACCOUNT#alice', sk: 'BAN' }],
    ['a member key', { ...issued, sk: 'MEMBER#alice' }],
    ['another partition', { ...issued, gsi2pk: 'LIVE#other#1#us-east-1' }],
    ['a sort key of another room', { ...issued, gsi2sk: '2026-01-01T00:00:00.000Z#r-2' }],
    ['a sort key without a date', { ...issued, gsi2sk: 'yesterday#r-1' }],
    ['an oversized sort key', { ...issued, gsi2sk: `${'9'.repeat(1100)}#r-1` }],
    ['an extra attribute', { ...issued, players: 1 }],
    ['numbers', { pk: 1, sk: 2, gsi2pk: partition, gsi2sk: 3 }],
    ['an array', [issued]],
    ['not JSON', 'garbage'],
  ])('refuses a token holding %s with 400 naming query.nextToken', (_name, key) => {
    expect(() => decodePageToken(typeof key === 'string' ? key : token(key), partition)).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        details: { fields: [expect.objectContaining({ field: 'query.nextToken' })] },
      }),
    );
  });
});
