import { join } from 'node:path';
import { platform } from '../../lambdas/dependencies';
import { keepPools } from '../../lambdas/schedule/pool-keeper';
import { jsonClient } from '../helpers/http';
import { readyStandby, startTestCloud, type TestCloud } from '../helpers/local-cloud';
import { processesWithMarker, processTree, stillRunning, type ProcessRecord } from '../helpers/process-tree';

/**
 * Issue 27, point 2: lowering a configuration's `standby` to 0, or deleting the configuration,
 * retires its standby servers on the pool keeper's next pass (their processes end), and the
 * configuration leaves the pool registry once they are gone. On the local cloud with the sample
 * game, the keeper run by the test only (no sweeps in between), one pass each.
 */
const sampleGame = join(__dirname, '../../containers/sample-game/bin/sample-game');
const configuration = {
  binary: sampleGame,
  maxPlayers: 4,
  spawnTimeoutS: 20,
  standby: 2,
  env: { SAMPLE_GAME_HOST: '127.0.0.1' },
};
const lowered = { gameId: 'lowered', version: '1', region: 'local' };
const deleted = { gameId: 'deleted', version: '1', region: 'local' };
const kept = { gameId: 'kept', version: '1', region: 'local' };

let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
let admin: string;

beforeAll(async () => {
  test = await startTestCloud(
    [lowered, deleted, kept].map(({ gameId, version }) => ({ gameId, version, configuration })),
    // The keeper runs when the test says so: a sweep would run it too.
    { sweepIntervalMs: 3_600_000 },
  );
  call = jsonClient(test.cloud.apiUrl);
  admin = (await call('POST', '/v1/dev/tokens', { body: { account: 'ops', scopes: ['admin'] } })).body.access_token;
  await keepPools();
  for (const pool of [lowered, deleted, kept]) expect(await readyStandby(pool, 2)).toHaveLength(2);
}, 90_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

/** Each standby server's processes (its sidecar and the game below it), found by its room id. */
async function standbyProcesses(pool: typeof lowered): Promise<{ roomIds: string[]; processes: ProcessRecord[] }> {
  const roomIds = (await platform().pool.servers(pool)).map((s) => s.roomId);
  const processes = roomIds.flatMap((roomId) =>
    processesWithMarker(`ROOM_ID=${roomId}\0`).flatMap((pid) => processTree(pid)),
  );
  return { roomIds, processes };
}

async function expectRetired(pool: typeof lowered, before: Awaited<ReturnType<typeof standbyProcesses>>) {
  expect(before.roomIds).toHaveLength(2);
  expect(before.processes.length).toBeGreaterThanOrEqual(2);
  const rooms = await Promise.all(before.roomIds.map((roomId) => platform().rooms.find(roomId)));
  expect(rooms.map((room) => room?.state)).toEqual(['closed', 'closed']);
  expect(stillRunning(before.processes)).toEqual([]);
  expect(await platform().pool.servers(pool)).toEqual([]);
  // Nothing left to empty: the configuration is no longer registered, and no pass starts one.
  expect((await platform().pool.registered()).map((c) => c.gameId)).not.toContain(pool.gameId);
  await keepPools();
  expect(await platform().pool.servers(pool)).toEqual([]);
}

describe('the pool keeper empties a pool its configuration no longer keeps', () => {
  it('retires both standby servers in one pass once standby is lowered to 0', async () => {
    const before = await standbyProcesses(lowered);
    const put = await call('PUT', '/v1/admin/games/lowered/versions/1', {
      token: admin,
      body: { ...configuration, standby: 0 },
    });
    expect(put.status).toBe(200);

    await keepPools();

    await expectRetired(lowered, before);
    // Another configuration's pool is untouched.
    expect(await readyStandby(kept, 2, 0)).toHaveLength(2);
  });

  it('retires both standby servers in one pass once the configuration is deleted', async () => {
    const before = await standbyProcesses(deleted);
    const removed = await call('DELETE', '/v1/admin/games/deleted/versions/1', { token: admin });
    expect(removed.status).toBe(204);

    await keepPools();

    await expectRetired(deleted, before);
    expect(await readyStandby(kept, 2, 0)).toHaveLength(2);
  });
});
