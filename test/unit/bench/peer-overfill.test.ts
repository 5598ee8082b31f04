import { overfillDuring, overfillOf, seatsPerRoom } from '../../bench/peer/overfill';

describe('peer over-fill counting', () => {
  it('sums the seats beyond capacity over rooms, and counts rooms at or under capacity as 0', () => {
    expect(overfillOf([10, 9, 0], 10)).toBe(0);
    expect(overfillOf([11, 10, 13], 10)).toBe(4);
  });

  it('groups the seats our clients hold by room id', () => {
    const seats = seatsPerRoom(['a', 'b', 'a', 'a']);
    expect([...seats.entries()]).toEqual([
      ['a', 3],
      ['b', 1],
    ]);
    expect(overfillOf(seats.values(), 2)).toBe(1);
  });

  it("takes a scenario's share of the servers' cumulative count", () => {
    expect(overfillDuring(3, 5)).toBe(2);
    expect(overfillDuring(3, 3)).toBe(0);
  });
});
