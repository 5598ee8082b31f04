import { Placement } from '../../../../core/placement/placement';
import type { Fleet } from '../../../../core/placement/fleet-store';
import type { ServerCaps, ServerLease } from '../../../../core/gameservers/server-slot-store';

const caps = { global: 10, configuration: 10 };
const lease = { roomId: 'r1', gameId: 'g', version: '1', acquiredAt: '2026-11-26T12:00:00.000Z' };

function placementOver(fleet: Fleet) {
  const acquired: { lease: ServerLease; caps: ServerCaps; on?: unknown }[] = [];
  const placement = new Placement({
    fleet: { read: () => Promise.resolve(fleet) },
    slots: {
      acquire: (l, c, on) => {
        acquired.push({ lease: l, caps: c, on });
        return Promise.resolve();
      },
    },
    now: () => new Date('2026-11-26T12:00:00.000Z'),
    deploymentRegion: 'us-east-1',
  });
  return { placement, acquired };
}

describe('Placement without hosts', () => {
  it("serves the deployment's one region when the fleet is empty, and 400s any other", async () => {
    const { placement, acquired } = placementOver({ regions: [], hosts: [] });
    expect(await placement.place('r1', { latencies: { 'eu-west-1': 5 } }, lease, caps)).toEqual({
      region: 'us-east-1',
    });
    expect(acquired).toEqual([{ lease, caps, on: undefined }]);
    await expect(placement.place('r1', { region: 'mars-1' }, lease, caps)).rejects.toMatchObject({ status: 400 });
  });

  it('chooses among its regions by the rules, with no host accounting, when regions have no hosts', async () => {
    const { placement, acquired } = placementOver({
      regions: [
        { name: 'eu-west-1', location: { lat: 53.35, lon: -6.26 }, default: false },
        { name: 'us-east-1', location: { lat: 38.9, lon: -77.4 }, default: true },
      ],
      hosts: [],
    });
    expect(
      await placement.place('r1', { caller: { lat: 48.9, lon: 2.35, source: 'ip-database' } }, lease, caps),
    ).toEqual({
      region: 'eu-west-1',
    });
    expect(await placement.regionFor({})).toBe('us-east-1');
    expect(acquired.map((a) => a.on)).toEqual([undefined]);
  });
});
