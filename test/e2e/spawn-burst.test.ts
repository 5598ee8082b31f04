import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCloud, type LocalCloud } from '../../local/cloud';
import { jsonClient } from '../helpers/http';
import { processTreeAlive } from '../helpers/processes';

/**
 * 50 rooms asked for at once on the local fleet, with the default health settings: every
 * create ends 201 (ready) or 202 (still spawning at the wait limit), never an error, and no
 * two live servers share a port.
 */
const fixtureGame = join(__dirname, '../fixtures/games/protocol-game.mjs');

let cloud: LocalCloud;
let configDir: string;

beforeAll(async () => {
  configDir = mkdtempSync(join(tmpdir(), 'roomkeeper-burst-'));
  const configPath = join(configDir, 'roomkeeper.local.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      games: [
        // 100 processes starting at once on 2 cores take a while: a generous deadline.
        {
          gameId: 'burst',
          version: '1',
          configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 4, spawnTimeoutS: 60 },
        },
      ],
    }),
  );
  cloud = await startLocalCloud({ port: 0, configPath, gameOutput: 'ignore', rateLimits: { createsPerMinute: 1000 } });
}, 60_000);

afterAll(async () => {
  const pids = cloud?.fleet.pids ?? [];
  await cloud?.stop();
  rmSync(configDir, { recursive: true, force: true });
  expect(pids.filter(processTreeAlive)).toEqual([]);
});

it('gives 50 rooms created at once 50 distinct ports, and frees them all when they end', async () => {
  const call = jsonClient(cloud.apiUrl);
  const token = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
  const started = Date.now();
  const responses = await Promise.all(
    Array.from({ length: 50 }, () => call('POST', '/v1/rooms', { token, body: { gameId: 'burst', version: '1' } })),
  );
  const statuses = responses.map((r) => r.status);
  process.stdout.write(
    `50 concurrent creates answered within ${Date.now() - started} ms: ${statuses.filter((s) => s === 201).length} × 201, ${statuses.filter((s) => s === 202).length} × 202\n`,
  );
  expect(responses.filter((r) => r.status !== 201 && r.status !== 202).map((r) => r.body)).toEqual([]);
  const roomIds = new Set(responses.map((r) => `local:${r.body.room.roomId}`));
  const held = cloud.fleet.placements.filter((p) => roomIds.has(p.taskId));
  expect(held).toHaveLength(50);
  expect(new Set(held.flatMap((p) => p.ports)).size).toBe(50);
  await cloud.fleet.stopAll('test done');
  expect(cloud.fleet.portPool.inUse).toBe(0);
}, 120_000);
