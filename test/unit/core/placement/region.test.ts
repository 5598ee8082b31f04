import { RequestInvalidError } from '../../../../core/errors';
import { resolveRegion } from '../../../../core/placement/region';

const served = ['eu-west-1', 'us-east-1', 'ap-southeast-2'];

describe('resolveRegion', () => {
  it.each([
    ['the requested region', { requested: 'us-east-1', latencies: { 'eu-west-1': 5 } }, 'us-east-1'],
    ['the lowest latency', { latencies: { 'eu-west-1': 80, 'us-east-1': 20, 'ap-southeast-2': 300 } }, 'us-east-1'],
    ['ignoring regions not served', { latencies: { 'mars-1': 1, 'eu-west-1': 50 } }, 'eu-west-1'],
    ['the fallback without measurements', {}, 'eu-west-1'],
  ])('picks %s', (_name, choice, expected) => {
    expect(resolveRegion(choice, served, 'eu-west-1')).toBe(expected);
  });

  it('refuses a requested region that is not served, naming the field', () => {
    expect(() => resolveRegion({ requested: 'mars-1' }, served, 'eu-west-1')).toThrow(RequestInvalidError);
  });
});
