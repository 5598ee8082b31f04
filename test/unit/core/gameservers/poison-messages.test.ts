import { isLastDelivery } from '../../../../core/gameservers/poison-messages';

describe('isLastDelivery', () => {
  it.each([
    ['1', 5, false],
    ['4', 5, false],
    ['5', 5, true],
    // A count past the limit (a redrive that has not happened yet) is still the last.
    ['6', 5, true],
    [undefined, 5, false],
    ['', 5, false],
    ['five', 5, false],
    ['4.5', 5, false],
  ] as const)('receive count %p of at most %p → %p', (count, max, expected) => {
    expect(isLastDelivery(count, max)).toBe(expected);
  });
});
