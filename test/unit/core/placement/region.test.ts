import fc from 'fast-check';
import { RequestInvalidError } from '../../../../core/errors';
import type { Region } from '../../../../core/placement/fleet-model';
import { rankRegions } from '../../../../core/placement/region';

// Dublin, Virginia, Sydney: the default is Virginia.
const regions: Region[] = [
  { name: 'eu-west-1', location: { lat: 53.35, lon: -6.26 }, default: false },
  { name: 'us-east-1', location: { lat: 38.9, lon: -77.4 }, default: true },
  { name: 'ap-southeast-2', location: { lat: -33.87, lon: 151.21 }, default: false },
];
const paris = { lat: 48.86, lon: 2.35, source: 'ip-database' } as const;
const tokyo = { lat: 35.68, lon: 139.69, source: 'cloudfront-headers' } as const;

const order = (ranked: { region: string }[]) => ranked.map((r) => r.region);

describe('rankRegions', () => {
  it('puts the requested region first, whatever the latencies and location say', () => {
    const ranked = rankRegions({ region: 'ap-southeast-2', latencies: { 'eu-west-1': 5 }, caller: paris }, regions);
    expect(ranked[0]).toEqual({ region: 'ap-southeast-2', reason: 'requested' });
    // The rest follow the other rules: fallback goes to the next best, not anywhere.
    expect(order(ranked)).toEqual(['ap-southeast-2', 'eu-west-1', 'us-east-1']);
  });

  it('refuses a region that is not served with a 400 naming the field and the served regions', () => {
    try {
      rankRegions({ region: 'mars-1' }, regions);
      throw new Error('not refused');
    } catch (error) {
      expect(error).toBeInstanceOf(RequestInvalidError);
      expect((error as RequestInvalidError).status).toBe(400);
      expect((error as RequestInvalidError).message).toContain("'mars-1'");
      expect((error as RequestInvalidError).details).toEqual({
        fields: [{ field: 'body.region', message: 'must be one of ap-southeast-2, eu-west-1, us-east-1' }],
      });
    }
  });

  it('orders measured regions by latency, ignoring regions not served, before the location', () => {
    const ranked = rankRegions(
      { latencies: { 'mars-1': 1, 'ap-southeast-2': 40, 'us-east-1': 90 }, caller: paris },
      regions,
    );
    expect(ranked.slice(0, 2)).toEqual([
      { region: 'ap-southeast-2', reason: 'latency', measure: 40 },
      { region: 'us-east-1', reason: 'latency', measure: 90 },
    ]);
    expect(ranked[2]).toMatchObject({ region: 'eu-west-1', reason: 'geo' });
  });

  it('chooses the nearest region by distance when nothing was measured', () => {
    expect(rankRegions({ caller: paris }, regions)[0]).toMatchObject({ region: 'eu-west-1', reason: 'geo' });
    const fromTokyo = rankRegions({ caller: tokyo }, regions);
    // Tokyo–Dublin (9,600 km) is shorter than Tokyo–Virginia (10,900 km).
    expect(order(fromTokyo)).toEqual(['ap-southeast-2', 'eu-west-1', 'us-east-1']);
    expect(fromTokyo[0]?.measure).toBeGreaterThan(7_000);
    expect(fromTokyo[0]?.measure).toBeLessThan(8_500);
  });

  it('falls back to the default region, then the rest by name', () => {
    expect(rankRegions({}, regions)).toEqual([
      { region: 'us-east-1', reason: 'default' },
      { region: 'ap-southeast-2', reason: 'remaining' },
      { region: 'eu-west-1', reason: 'remaining' },
    ]);
  });

  it('breaks equal latencies by region name', () => {
    expect(order(rankRegions({ latencies: { 'us-east-1': 30, 'eu-west-1': 30 } }, regions)).slice(0, 2)).toEqual([
      'eu-west-1',
      'us-east-1',
    ]);
  });

  it('always lists every served region exactly once, the first being the requested one if any', () => {
    const names = regions.map((r) => r.name);
    fc.assert(
      fc.property(
        fc.option(fc.constantFrom(...names), { nil: undefined }),
        fc.dictionary(fc.constantFrom(...names, 'mars-1'), fc.integer({ min: 0, max: 60_000 })),
        fc.option(
          fc.record({
            lat: fc.double({ min: -90, max: 90, noNaN: true }),
            lon: fc.double({ min: -180, max: 180, noNaN: true }),
          }),
          { nil: undefined },
        ),
        (region, latencies, point) => {
          const ranked = rankRegions(
            { region, latencies, ...(point ? { caller: { ...point, source: 'ip-database' as const } } : {}) },
            regions,
          );
          expect([...order(ranked)].sort()).toEqual([...names].sort());
          if (region) expect(ranked[0]?.region).toBe(region);
        },
      ),
    );
  });
});
