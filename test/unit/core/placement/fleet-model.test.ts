import { hostHealth, hostView, rankHosts, type Host } from '../../../../core/placement/fleet-model';

const now = new Date('2026-11-26T12:00:00.000Z');
const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000).toISOString();

function host(hostId: string, overrides: Partial<Host> = {}, beat: Partial<NonNullable<Host['heartbeat']>> = {}): Host {
  return {
    hostId,
    region: 'eu-west-1',
    maxServers: 10,
    limits: { cpu: 0.9, memory: 0.9 },
    heartbeatTimeoutS: 15,
    draining: false,
    placed: 0,
    createdAt: secondsAgo(3600),
    heartbeat: { cpu: 0.1, memory: 0.2, servers: 0, at: secondsAgo(1), ...beat },
    ...overrides,
  };
}

describe('hostHealth', () => {
  it.each([
    ['draining', host('a', { draining: true }), 'draining'],
    ['never heard from', host('a', { heartbeat: undefined }), 'no-heartbeat'],
    ['silent past its timeout', host('a', {}, { at: secondsAgo(16) }), 'heartbeat-late'],
    ['full by placements', host('a', { placed: 10 }), 'full'],
    ['full by its own report', host('a', {}, { servers: 10 }), 'full'],
    ['over its CPU limit', host('a', {}, { cpu: 0.95 }), 'cpu-over-limit'],
    ['over its memory limit', host('a', {}, { memory: 0.91 }), 'memory-over-limit'],
  ])('refuses a host %s', (_name, h, reason) => {
    expect(hostHealth(h, now)).toMatchObject({ healthy: false, reason });
  });

  it('accepts a host heard from exactly at its timeout, loaded by its largest share', () => {
    expect(hostHealth(host('a', { placed: 3 }, { at: secondsAgo(15), cpu: 0.2, memory: 0.1 }), now)).toEqual({
      healthy: true,
      load: 0.3,
    });
    expect(hostHealth(host('a', { placed: 1 }, { cpu: 0.7 }), now)).toEqual({ healthy: true, load: 0.7 });
  });
});

describe('hostView', () => {
  it('shows servers, heartbeat age and load, also of a host placement refuses', () => {
    const full = hostView(host('a', { placed: 4 }, { servers: 10, at: secondsAgo(7), cpu: 0.5 }), now);
    expect(full).toMatchObject({ health: { healthy: false, reason: 'full' }, servers: 10, heartbeatAgeS: 7, load: 1 });
    const silent = hostView(host('b', { placed: 2, heartbeat: undefined }), now);
    expect(silent).toMatchObject({ servers: 2 });
    expect(silent).not.toHaveProperty('heartbeatAgeS');
    expect(silent).not.toHaveProperty('load');
  });
});

describe('rankHosts', () => {
  it('puts the least loaded healthy host first, equal loads by id, and says why others were skipped', () => {
    const { candidates, skipped } = rankHosts(
      [
        host('c', { placed: 5 }),
        host('b', { placed: 2 }),
        host('a', { placed: 2 }),
        host('d', { draining: true }),
        host('e', {}, { at: secondsAgo(60) }),
      ],
      now,
    );
    expect(candidates.map((c) => c.host.hostId)).toEqual(['a', 'b', 'c']);
    expect(skipped.map((s) => [s.hostId, s.reason])).toEqual([
      ['d', 'draining'],
      ['e', 'heartbeat-late'],
    ]);
    expect(skipped[1]?.detail).toBe('last heartbeat 60 s ago (timeout 15 s)');
  });

  it('gives the same order whatever order the hosts are read in', () => {
    const hosts = ['h3', 'h1', 'h2', 'h4'].map((id) => host(id, { placed: id === 'h4' ? 1 : 0 }));
    const expected = ['h1', 'h2', 'h3', 'h4'];
    expect(rankHosts(hosts, now).candidates.map((c) => c.host.hostId)).toEqual(expected);
    expect(rankHosts([...hosts].reverse(), now).candidates.map((c) => c.host.hostId)).toEqual(expected);
  });
});
