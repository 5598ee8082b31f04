import type { LocalCloud } from '../../local/cloud';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * 32 rooms asked for at once on the local fleet, with the default health settings: every
 * create ends 201 (ready) or 202 (still spawning at the wait limit), never an error, and no
 * two live servers share a port.
 */
/**
 * Each create starts two processes (sidecar and game) on this machine's 2 cores; 32 keep the
 * burst well past what the port pool must serialize while every answer still beats the
 * gateway's 30 s on a loaded CI machine (50 did not, on every commit).
 */
const burst = 32;
let test: TestCloud;
let cloud: LocalCloud;

beforeAll(async () => {
  // A create holds its caller 10 s, not 25: 100 processes starting at once on 2 cores starve
  // DynamoDB Local, and the answer after the hold must still beat the gateway's 30 s.
  test = await startTestCloud(
    [
      // 100 processes starting at once on 2 cores take a while: a generous deadline.
      {
        gameId: 'burst',
        version: '1',
        configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 4, spawnTimeoutS: 60 },
      },
    ],
    { createWaitS: 10 },
  );
  cloud = test.cloud;
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

it('never gives two live servers one port while 32 rooms are created at once, and frees them all when they end', async () => {
  // Watch the real pool: every grant must be of ports no live server holds.
  const pool = cloud.fleet.portPool;
  const live = new Set<number>();
  const doubleGrants: number[] = [];
  let grants = 0;
  const allocate = pool.allocate.bind(pool);
  const release = pool.release.bind(pool);
  pool.allocate = async (count, probe) => {
    const ports = await allocate(count, probe);
    grants += 1;
    for (const port of ports) {
      if (live.has(port)) doubleGrants.push(port);
      live.add(port);
    }
    return ports;
  };
  pool.release = (ports) => {
    for (const port of ports) live.delete(port);
    release(ports);
  };

  const call = jsonClient(cloud.apiUrl);
  const token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
  const started = Date.now();
  const responses = await Promise.all(
    Array.from({ length: burst }, () => call('POST', '/v1/rooms', { token, body: { gameId: 'burst', version: '1' } })),
  );
  const statuses = responses.map((r) => r.status);
  process.stdout.write(
    `${burst} concurrent creates answered within ${Date.now() - started} ms: ${statuses.filter((s) => s === 201).length} × 201, ${statuses.filter((s) => s === 202).length} × 202; ${grants} port grants, ${doubleGrants.length} double grants (expected 0)\n`,
  );
  expect(responses.filter((r) => r.status !== 201 && r.status !== 202).map((r) => r.body)).toEqual([]);
  expect(grants).toBe(burst);
  expect(doubleGrants).toEqual([]);
  const held = cloud.fleet.placements.flatMap((p) => p.ports);
  expect(new Set(held).size).toBe(held.length);
  await cloud.fleet.stopAll('test done');
  expect(pool.inUse).toBe(0);
}, 120_000);
