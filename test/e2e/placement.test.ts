import type { LocalCloud } from '../../local/cloud';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Placement on the local cloud with two regions and three local hosts (real processes, real
 * heartbeats): every rule choosing a region, the least-loaded healthy host, and the hosts
 * placement must skip (full, draining, silent, over a limit), down to 503 NO_HEALTHY_HOST.
 *
 *   eu-west (Dublin): eu-1 (2 servers), eu-2 (2 servers)
 *   us-east (Virginia, the default): us-1 (4 servers)
 */
const regions = [
  {
    name: 'eu-west',
    location: { lat: 53.35, lon: -6.26 },
    hosts: [
      { hostId: 'eu-1', maxServers: 2, heartbeatTimeoutS: 2 },
      { hostId: 'eu-2', maxServers: 2, heartbeatTimeoutS: 2 },
    ],
  },
  {
    name: 'us-east',
    location: { lat: 38.9, lon: -77.4 },
    default: true,
    hosts: [{ hostId: 'us-1', maxServers: 4, heartbeatTimeoutS: 2 }],
  },
];

let test: TestCloud;
let cloud: LocalCloud;
let call: ReturnType<typeof jsonClient>;
let token: string;
let admin: string;

beforeAll(async () => {
  test = await startTestCloud(
    [
      {
        gameId: 'arena',
        version: '1',
        configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 4, spawnTimeoutS: 10 },
      },
    ],
    { hostHeartbeatIntervalMs: 300 },
    { regions },
  );
  cloud = test.cloud;
  call = jsonClient(cloud.apiUrl);
  token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
  admin = (await call('POST', '/v1/dev/tokens', { body: { account: 'ops', scopes: ['admin'] } })).body.access_token;
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

async function create(body: Record<string, unknown> = {}, headers: Record<string, string> = {}) {
  const response = await call('POST', '/v1/rooms', {
    token,
    headers,
    body: { gameId: 'arena', version: '1', ...body },
  });
  const roomId = response.body?.room?.roomId as string | undefined;
  return {
    ...response,
    region: response.body?.room?.region,
    host: roomId ? cloud.fleet.hostsByRoom.get(roomId) : undefined,
  };
}

const hostOf = async (hostId: string) => (await call('GET', `/v1/admin/hosts/${hostId}`, { token: admin })).body.host;

async function until<T>(read: () => Promise<T>, accept: (value: T) => boolean, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (accept(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('placement across two regions and three hosts', () => {
  it('chooses the default region without a request, a measurement or a public address', async () => {
    const room = await create();
    expect(room.status).toBe(201);
    expect([room.region, room.host]).toEqual(['us-east', 'us-1']);
  });

  it('chooses the lowest measured latency', async () => {
    const room = await create({ latencies: { 'eu-west': 80, 'us-east': 20 } });
    expect([room.status, room.region, room.host]).toEqual([201, 'us-east', 'us-1']);
  });

  it('honours a requested region, on its least-loaded host (equal loads by id)', async () => {
    const room = await create({ region: 'eu-west', latencies: { 'us-east': 1 } });
    expect([room.status, room.region, room.host]).toEqual([201, 'eu-west', 'eu-1']);
  });

  it('refuses a region it does not serve with 400, naming the served ones', async () => {
    const room = await create({ region: 'mars-1' });
    expect(room.status).toBe(400);
    expect(room.body.error.code).toBe('BAD_REQUEST');
    expect(room.body.error.details.fields).toEqual([
      { field: 'body.region', message: 'must be one of eu-west, us-east' },
    ]);
  });

  it('chooses the nearest region to the caller: IPv4, then IPv6, on the less loaded host', async () => {
    const v4 = await create({}, { 'x-forwarded-for': '81.2.69.142' }); // Newmarket, England
    expect([v4.status, v4.region, v4.host]).toEqual([201, 'eu-west', 'eu-2']);
    const v6 = await create({}, { 'x-forwarded-for': '2a00:23c4::1' }); // Ipswich, England
    expect([v6.status, v6.region, v6.host]).toEqual([201, 'eu-west', 'eu-1']);
  });

  it('treats a private or unknown address as unknown: the default region', async () => {
    for (const address of ['10.1.2.3', 'fd00::7']) {
      const room = await create({}, { 'x-forwarded-for': address });
      expect([room.status, room.region]).toEqual([201, 'us-east']);
    }
    expect((await hostOf('us-1')).placed).toBe(4);
  });

  it('skips full and draining hosts, answers 503 without fallback, and lets drained rooms play out', async () => {
    // eu-1 is full (2 of 2); eu-2 runs one server and is drained.
    const drained = await call('PATCH', '/v1/admin/hosts/eu-2', { token: admin, body: { draining: true } });
    expect(drained.body.host.health).toMatchObject({ healthy: false, reason: 'draining' });
    const refused = await create({ region: 'eu-west' });
    expect(refused.status).toBe(503);
    expect(refused.body.error.code).toBe('NO_HEALTHY_HOST');
    expect(refused.body.error.message).toMatch(/eu-1 full \(runs 2 of 2 servers\)/);
    expect(refused.body.error.message).toMatch(/eu-2 draining/);
    expect(refused.body.error.message).toMatch(/regionFallback/);

    // The rooms already on the drained host keep playing and take joins.
    const onEu2 = [...cloud.fleet.hostsByRoom].find(([, hostId]) => hostId === 'eu-2')?.[0];
    expect(onEu2).toBeDefined();
    const bob = (await call('POST', '/v1/dev/tokens', { body: { account: 'bob' } })).body.access_token;
    const joined = await call('POST', `/v1/rooms/${onEu2}/join`, { token: bob, body: {} });
    expect(joined.status).toBe(200);
    expect(joined.body.room.state).toBe('ready');

    await call('PATCH', '/v1/admin/hosts/eu-2', { token: admin, body: { draining: false } });
    const last = await create({ region: 'eu-west' });
    expect([last.status, last.host]).toEqual([201, 'eu-2']);
  });

  it('goes to the next best region only when the client allows fallback', async () => {
    // eu-west is full; us-east is full too: raise its capacity so fallback has somewhere to go.
    await call('PATCH', '/v1/admin/hosts/us-1', { token: admin, body: { maxServers: 10 } });
    const strict = await create({ region: 'eu-west' });
    expect(strict.status).toBe(503);
    const fallback = await create({ region: 'eu-west', regionFallback: true });
    expect([fallback.status, fallback.region, fallback.host]).toEqual([201, 'us-east', 'us-1']);
  });

  it('gives a host whose heartbeats stopped no new server, and takes it back when they resume', async () => {
    cloud.hosts.pause('us-1');
    const silent = await until(
      () => hostOf('us-1'),
      (host) => host.health.healthy === false,
    );
    expect(silent.health.reason).toBe('heartbeat-late');
    const refused = await create();
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toMatch(/us-1 heartbeat-late/);
    cloud.hosts.resume('us-1');
    await until(
      () => hostOf('us-1'),
      (host) => host.health.healthy === true,
    );
    expect((await create()).host).toBe('us-1');
  });

  it('gives a host over its memory limit no new server', async () => {
    await call('PATCH', '/v1/admin/hosts/us-1', { token: admin, body: { limits: { cpu: 1, memory: 0.000001 } } });
    const over = await until(
      () => hostOf('us-1'),
      (host) => host.health.healthy === false,
    );
    expect(over.health.reason).toBe('memory-over-limit');
    const refused = await create();
    expect(refused.status).toBe(503);
    expect(refused.body.error.message).toMatch(/us-1 memory-over-limit/);
    await call('PATCH', '/v1/admin/hosts/us-1', { token: admin, body: { limits: { cpu: 1, memory: 1 } } });
  });

  it('lets only admins change hosts, and refuses a second host of one id', async () => {
    const host = { hostId: 'eu-1', region: 'eu-west', maxServers: 5 };
    expect((await call('POST', '/v1/admin/hosts', { token, body: host })).status).toBe(403);
    const duplicate = await call('POST', '/v1/admin/hosts', { token: admin, body: host });
    expect(duplicate.status).toBe(409);
    expect(duplicate.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining("'eu-1' exists") });
    const listed = await call('GET', '/v1/admin/hosts', { token: admin });
    expect(listed.body.hosts.map((h: { hostId: string }) => h.hostId)).toEqual(['eu-1', 'eu-2', 'us-1']);
    const busy = await call('DELETE', '/v1/admin/hosts/eu-1', { token: admin });
    expect([busy.status, busy.body.error.code]).toEqual([409, 'CONFLICT']);
  });
});
