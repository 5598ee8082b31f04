import { assertIfMatch, formatETag, parseIfMatch } from '../../../../core/rooms/if-match';
import { SessionPreconditionFailedError } from '../../../../core/rooms/session-errors';

describe('parseIfMatch', () => {
  it.each([
    ['"12"', 12],
    ['12', 12],
    [' "0" ', 0],
    ['"999999999999999"', 999_999_999_999_999],
    ['*', undefined],
    [undefined, undefined],
  ])('reads %p as %p', (header, expected) => {
    expect(parseIfMatch(header)).toBe(expected);
  });

  it.each([
    ['empty', ''],
    ['weak', 'W/"12"'],
    ['a list', '"1", "2"'],
    ['negative', '"-1"'],
    ['fractional', '"1.5"'],
    ['text', '"abc"'],
    ['half quoted', '"12'],
    ['beyond 15 digits', '"1234567890123456"'],
    ['hex', '0x10'],
  ])('refuses %s: 400 naming the header', (_name, header) => {
    expect(() => parseIfMatch(header)).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        details: { fields: [expect.objectContaining({ field: 'header.if-match' })] },
      }),
    );
  });
});

describe('formatETag', () => {
  it('quotes the change number, and parseIfMatch reads it back', () => {
    expect(formatETag(7)).toBe('"7"');
    expect(parseIfMatch(formatETag(7))).toBe(7);
  });
});

describe('assertIfMatch', () => {
  it('passes without a precondition or with the current change number', () => {
    expect(() => assertIfMatch('r1', undefined, 5)).not.toThrow();
    expect(() => assertIfMatch('r1', 5, 5)).not.toThrow();
  });

  it('answers 412 with the current change number when stale', () => {
    expect(() => assertIfMatch('r1', 4, 5)).toThrow(SessionPreconditionFailedError);
    expect(() => assertIfMatch('r1', 4, 5)).toThrow(
      expect.objectContaining({ code: 'PRECONDITION_FAILED', status: 412, details: { roomId: 'r1', changeNumber: 5 } }),
    );
  });
});
