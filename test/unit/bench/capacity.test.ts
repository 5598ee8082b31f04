import { criticalPath, itemSize, readUnits, tally, valueSize, writeUnits } from '../../bench/capacity';

const at = (start: number, end: number) => ({ start, end });

describe('criticalPath: the requests in a row a caller waits for', () => {
  it('counts nothing for no request and one for one', () => {
    expect(criticalPath([])).toBe(0);
    expect(criticalPath([at(0, 5)])).toBe(1);
  });

  it('counts requests sent side by side once', () => {
    expect(criticalPath([at(0, 5), at(1, 6), at(2, 4)])).toBe(1);
  });

  it('counts a request sent after another answered as one more round trip, in any order given', () => {
    expect(criticalPath([at(10, 15), at(0, 5), at(5, 9)])).toBe(3);
  });

  it('follows the longest chain, not the number of waves', () => {
    // A long request beside two short ones in a row: the short chain is the longer one.
    expect(criticalPath([at(0, 10), at(0, 4), at(4, 8), at(10, 12)])).toBe(3);
  });

  it('does not chain a request that started before the other ended', () => {
    expect(criticalPath([at(0, 5), at(4.9, 9)])).toBe(1);
  });
});

describe('capacity units by DynamoDB rules', () => {
  it('sizes values: strings in UTF-8 bytes, numbers by significant digits, lists and maps with overhead', () => {
    expect(valueSize({ S: 'é' })).toBe(2);
    expect(valueSize({ N: '12345' })).toBe(4);
    expect(valueSize({ N: '1000' })).toBe(2);
    expect(valueSize({ BOOL: true })).toBe(1);
    expect(valueSize({ L: [{ S: 'ab' }, { NULL: true }] })).toBe(3 + (1 + 2) + (1 + 1));
    expect(valueSize({ M: { k: { S: 'abc' } } })).toBe(3 + 1 + 1 + 3);
    expect(itemSize({ pk: { S: 'room#1' }, n: { N: '7' } })).toBe(2 + 6 + 1 + 2);
  });

  it('bills a write 1 unit per KB begun, twice in a transaction', () => {
    expect(writeUnits(0)).toBe(1);
    expect(writeUnits(1024)).toBe(1);
    expect(writeUnits(1025)).toBe(2);
    expect(writeUnits(3000, true)).toBe(6);
  });

  it('bills a read 1 unit per 4 KB begun strongly consistent, half eventually, twice in a transaction', () => {
    expect(readUnits(100, 'strong')).toBe(1);
    expect(readUnits(4097, 'strong')).toBe(2);
    expect(readUnits(5000, 'eventual')).toBe(1);
    expect(readUnits(100, 'eventual')).toBe(0.5);
    expect(readUnits(100, 'transactional')).toBe(2);
  });

  it('tallies one run: its critical path, its requests and their units', () => {
    const run = [
      { ...at(0, 5), rcu: 0.5, wcu: 0 },
      { ...at(1, 4), rcu: 1, wcu: 0 },
      { ...at(6, 9), rcu: 0, wcu: 3 },
    ];
    expect(tally(run)).toEqual({ sequential: 2, requests: 3, rcu: 1.5, wcu: 3 });
  });
});
