import { ServerSlotStore } from '../../../core/gameservers/server-slot-store';
import { NoHealthyHostError } from '../../../core/gameservers/errors';
import { FleetConflictError, HostNotFoundError } from '../../../core/placement/errors';
import { FleetStore } from '../../../core/placement/fleet-store';
import { Placement } from '../../../core/placement/placement';
import { RequestInvalidError } from '../../../core/errors';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Regions, hosts and placement on real DynamoDB Local: the host's server count moves in the
 * same transaction as the server-slot lease, on condition the host is still healthy, so
 * parallel creates never put more servers on a host than it takes.
 */
let platform: TestPlatform;
let fleet: FleetStore;
let slots: ServerSlotStore;
const caps = { global: 100_000, configuration: 100_000 };
const lease = (roomId: string) => ({ roomId, gameId: 'arena', version: '1', acquiredAt: new Date().toISOString() });

beforeAll(async () => {
  platform = await startTestPlatform();
  fleet = new FleetStore(platform.db, platform.tableName, new PlatformCache());
  slots = new ServerSlotStore(platform.db, platform.tableName);
  await fleet.putRegion({ name: 'eu-west-1', location: { lat: 53.35, lon: -6.26 }, default: false });
  await fleet.putRegion({ name: 'us-east-1', location: { lat: 38.9, lon: -77.4 }, default: true });
});
afterAll(() => platform.close());

const body = (hostId: string, region = 'eu-west-1', maxServers = 10) => ({
  hostId,
  region,
  maxServers,
  limits: { cpu: 0.9, memory: 0.9 },
});
const beat = { cpu: 0.1, memory: 0.2, servers: 0 };

describe('FleetStore', () => {
  it('refuses a second host of one id with 409 and a host in an unknown region with 400', async () => {
    await fleet.addHost(body('dup-1'), new Date());
    await expect(fleet.addHost(body('dup-1', 'us-east-1'), new Date())).rejects.toThrow(FleetConflictError);
    await expect(fleet.addHost(body('dup-1', 'us-east-1'), new Date())).rejects.toMatchObject({ status: 409 });
    await expect(fleet.addHost(body('nowhere-1', 'mars-1'), new Date())).rejects.toThrow(RequestInvalidError);
    expect((await fleet.getHost('dup-1')).region).toBe('eu-west-1');
    await expect(fleet.heartbeat('never-added', beat, new Date())).rejects.toThrow(HostNotFoundError);
    await fleet.deleteHost('dup-1');
  });

  it('moves the default flag: one default region at a time', async () => {
    await fleet.putRegion({ name: 'ap-1', location: { lat: 1, lon: 100 }, default: true });
    let regions = (await fleet.read()).regions;
    expect(regions.filter((r) => r.default).map((r) => r.name)).toEqual(['ap-1']);
    await fleet.putRegion({ name: 'us-east-1', location: { lat: 38.9, lon: -77.4 }, default: true });
    regions = (await fleet.read()).regions;
    expect(regions.filter((r) => r.default).map((r) => r.name)).toEqual(['us-east-1']);
    await fleet.deleteRegion('ap-1');
  });

  it('serves recent regions from its process’s cache: its own region writes at once, another process’s within the bound', async () => {
    // Not 0: lru-cache takes an entry started at 0 for one without a start, and never expires it.
    let nowMs = 1_000;
    const here = new FleetStore(platform.db, platform.tableName, new PlatformCache({ nowMs: () => nowMs }));
    // Another process (another Lambda instance): a cache of its own.
    const other = new FleetStore(platform.db, platform.tableName, new PlatformCache());
    const names = async () => (await here.recentRegions()).map((r) => r.name).sort();
    const before = await names();
    await other.putRegion({ name: 'recent-other-1', location: { lat: 0, lon: 0 }, default: false });
    expect(await names()).toEqual(before);
    // The bound: a change an admin made anywhere reaches creates within 1 s.
    nowMs += 1_001;
    expect(await names()).toEqual([...before, 'recent-other-1'].sort());
    await here.putRegion({ name: 'recent-own-1', location: { lat: 0, lon: 1 }, default: false });
    expect(await names()).toEqual([...before, 'recent-other-1', 'recent-own-1'].sort());
    await other.deleteRegion('recent-other-1');
    await here.deleteRegion('recent-own-1');
    expect(await names()).toEqual(before);
  });

  it('places exactly maxServers of 200 parallel servers on a host, and releases give them back', async () => {
    const host = await fleet.addHost(body('race-1', 'eu-west-1', 10), new Date());
    await fleet.heartbeat('race-1', beat, new Date());
    const fresh = await fleet.getHost(host.hostId);
    const outcomes = await Promise.allSettled(
      Array.from({ length: 200 }, (_, i) => slots.acquire(lease(`race-${i}`), caps, { host: fresh, now: new Date() })),
    );
    const placed = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [`race-${i}`] : []));
    expect(placed).toHaveLength(10);
    for (const o of outcomes) if (o.status === 'rejected') expect(o.reason).toBeInstanceOf(NoHealthyHostError);
    expect((await fleet.getHost('race-1')).placed).toBe(10);
    expect((await slots.leases()).filter((l) => l.hostId === 'race-1')).toHaveLength(10);
    await expect(fleet.deleteHost('race-1')).rejects.toThrow(/still runs 10 game server/);

    await Promise.all(placed.map((roomId) => slots.release(roomId)));
    expect((await fleet.getHost('race-1')).placed).toBe(0);
    await fleet.deleteHost('race-1');
  });

  it('refuses a slot on a host that went silent, drained or over a limit since placement read it', async () => {
    await fleet.addHost(body('cond-1'), new Date());
    const longAgo = new Date(Date.now() - 60_000);
    await fleet.heartbeat('cond-1', beat, longAgo);
    const read = await fleet.getHost('cond-1');
    await expect(slots.acquire(lease('cond-a'), caps, { host: read, now: new Date() })).rejects.toThrow(
      /took no new server/,
    );

    await fleet.heartbeat('cond-1', beat, new Date());
    await fleet.patchHost('cond-1', { draining: true });
    await expect(slots.acquire(lease('cond-b'), caps, { host: read, now: new Date() })).rejects.toThrow(
      /took no new server/,
    );

    await fleet.patchHost('cond-1', { draining: false });
    await fleet.heartbeat('cond-1', { ...beat, memory: 0.95 }, new Date());
    await expect(slots.acquire(lease('cond-c'), caps, { host: read, now: new Date() })).rejects.toThrow(
      /took no new server/,
    );

    await fleet.heartbeat('cond-1', beat, new Date());
    await slots.acquire(lease('cond-d'), caps, { host: read, now: new Date() });
    expect((await fleet.getHost('cond-1')).placed).toBe(1);
    // Nothing of the refused attempts is left behind.
    expect((await slots.leases()).filter((l) => l.roomId.startsWith('cond-')).map((l) => l.roomId)).toEqual(['cond-d']);
    await slots.release('cond-d');
    await fleet.deleteHost('cond-1');
  });
});

describe('Placement', () => {
  const placement = () => new Placement({ fleet, slots, now: () => new Date(), deploymentRegion: 'unused' });

  beforeAll(async () => {
    for (const [hostId, region, maxServers] of [
      ['eu-a', 'eu-west-1', 2],
      ['eu-b', 'eu-west-1', 2],
      ['us-a', 'us-east-1', 3],
    ] as const) {
      await fleet.addHost(body(hostId, region, maxServers), new Date());
      await fleet.heartbeat(hostId, beat, new Date());
    }
  });

  it('spreads servers over the least-loaded hosts, then falls back only when allowed, then 503', async () => {
    const p = placement();
    const chosen: string[] = [];
    for (let i = 0; i < 4; i++) {
      chosen.push((await p.place(`pl-${i}`, { region: 'eu-west-1' }, lease(`pl-${i}`), caps)).host?.hostId ?? '');
    }
    // Equal loads go by id; each placement makes its host the more loaded one.
    expect(chosen).toEqual(['eu-a', 'eu-b', 'eu-a', 'eu-b']);
    const refused = p.place('pl-4', { region: 'eu-west-1' }, lease('pl-4'), caps);
    await expect(refused).rejects.toThrow(NoHealthyHostError);
    await expect(p.place('pl-4', { region: 'eu-west-1' }, lease('pl-4'), caps)).rejects.toThrow(
      /eu-a full \(runs 2 of 2 servers\); eu-b full/,
    );
    const fallback = await p.place('pl-5', { region: 'eu-west-1', fallback: true }, lease('pl-5'), caps);
    expect(fallback).toMatchObject({ region: 'us-east-1', host: { hostId: 'us-a' } });
    expect(await p.regionFor({ region: 'eu-west-1', fallback: true })).toBe('us-east-1');
    expect(await p.regionFor({ region: 'eu-west-1' })).toBe('eu-west-1');
  });
});
