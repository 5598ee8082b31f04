import { join } from 'node:path';
import type { LocalCloud } from '../../local/cloud';
import { jsonClient } from '../helpers/http';
import { readyStandby, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * The warm pool and the command relay on a fleet of two regions and three local hosts: each
 * region keeps its own standby server on its least-loaded host, a create takes the one of
 * its region and the pool refills there; the owner's whitelisted command reaches that game
 * and others are refused.
 */
const sampleGame = join(__dirname, '../../containers/sample-game/bin/sample-game');
const regions = [
  {
    name: 'eu-west',
    location: { lat: 53.35, lon: -6.26 },
    hosts: [
      { hostId: 'eu-1', maxServers: 10 },
      { hostId: 'eu-2', maxServers: 10 },
    ],
  },
  { name: 'us-east', location: { lat: 38.9, lon: -77.4 }, default: true, hosts: [{ hostId: 'us-1', maxServers: 10 }] },
];

let test: TestCloud;
let cloud: LocalCloud;
let call: ReturnType<typeof jsonClient>;
let alice: string;
let bob: string;

beforeAll(async () => {
  test = await startTestCloud(
    [
      {
        gameId: 'sample',
        version: '1',
        configuration: {
          binary: sampleGame,
          maxPlayers: 8,
          spawnTimeoutS: 20,
          standby: 1,
          commands: ['say'],
          env: { SAMPLE_GAME_HOST: '127.0.0.1' },
        },
      },
    ],
    { sweepIntervalMs: 500, hostHeartbeatIntervalMs: 300 },
    { regions },
  );
  cloud = test.cloud;
  call = jsonClient(cloud.apiUrl);
  alice = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
  bob = (await call('POST', '/v1/dev/tokens', { body: { account: 'bob' } })).body.access_token;
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

const readyIn = (region: string) => readyStandby({ gameId: 'sample', version: '1', region });

describe('warm pool and commands across regions and hosts', () => {
  it('keeps a standby server in each region, on a host of that region', async () => {
    const [eu] = await readyIn('eu-west');
    const [us] = await readyIn('us-east');
    expect(eu && us).toBeTruthy();
    expect(cloud.fleet.hostsByRoom.get(eu?.roomId ?? '')).toMatch(/^eu-[12]$/);
    expect(cloud.fleet.hostsByRoom.get(us?.roomId ?? '')).toBe('us-1');
  });

  it("hands a create its region's standby server and refills that region", async () => {
    const [eu] = await readyIn('eu-west');
    const created = await call('POST', '/v1/rooms', {
      token: alice,
      body: { gameId: 'sample', version: '1', region: 'eu-west', settings: { map: 'fjord' } },
    });
    expect(created.status).toBe(201);
    expect(created.body.room).toMatchObject({ roomId: eu?.roomId, region: 'eu-west', state: 'ready' });
    const [next] = await readyIn('eu-west');
    expect(next?.roomId).not.toBe(eu?.roomId);
    // The other region's pool was not touched.
    expect(await readyIn('us-east')).toHaveLength(1);
  });

  it("relays the owner's whitelisted command to that game and refuses the rest", async () => {
    const created = await call('POST', '/v1/rooms', { token: alice, body: { gameId: 'sample', version: '1' } });
    expect([created.status, created.body.room.region]).toEqual([201, 'us-east']);
    const roomId = created.body.room.roomId as string;
    const said = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: alice,
      body: { command: 'say', args: { text: 'server restarts in 5 minutes' } },
    });
    expect(said.status).toBe(200);
    expect(said.body).toMatchObject({ state: 'answered', result: { delivered: expect.any(Number) } });
    const notWhitelisted = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: alice,
      body: { command: 'assign', args: {} },
    });
    expect([notWhitelisted.status, notWhitelisted.body.error.code]).toEqual([403, 'FORBIDDEN']);
    const notOwner = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: bob,
      body: { command: 'say', args: { text: 'hijack' } },
    });
    expect([notOwner.status, notOwner.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });
});
