import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fleetOwnerVariable } from '../../local/fleet-owner';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud } from '../helpers/local-cloud';
import { processTreeAlive } from '../helpers/processes';

/**
 * `npm start --persist DIR` twice: the second start reconciles the table with the processes
 * that really run. Rooms of the first run have no server any more (failed, joins refused);
 * a sidecar left behind by a run that died is stopped.
 */
const games = [{ gameId: 'ok', version: '1', configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 8 } }];
let persistDir: string;

beforeAll(() => {
  persistDir = mkdtempSync(join(tmpdir(), 'roomkeeper-persist-'));
});
afterAll(() => rmSync(persistDir, { recursive: true, force: true }));

/** A process that looks like a sidecar of a run whose platform process is gone. */
async function leftoverSidecar(): Promise<number> {
  const gone = spawn('true');
  await new Promise((resolve) => gone.once('exit', resolve));
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
    env: { PATH: process.env.PATH, [fleetOwnerVariable]: `${gone.pid}:1` },
    detached: true,
    stdio: 'ignore',
  });
  child.unref();
  return child.pid ?? -1;
}

describe('restart with --persist', () => {
  it('fails the rooms of the previous run, refuses joins into them, and stops its leftover processes', async () => {
    const first = await startTestCloud(games, { persistDir });
    const call1 = jsonClient(first.cloud.apiUrl);
    const owner1 = (await call1('POST', '/v1/dev/tokens', { body: { account: 'owner' } })).body.access_token;
    const created = await call1('POST', '/v1/rooms', { token: owner1, body: { gameId: 'ok', version: '1' } });
    expect(created.status).toBe(201);
    const roomId = created.body.room.roomId as string;
    // Stopping takes the servers down; the room may well still read `ready` in the persisted table.
    expect(await first.stop()).toEqual([]);

    const stray = await leftoverSidecar();
    expect(processTreeAlive(stray)).toBe(true);
    const second = await startTestCloud(games, { persistDir });
    try {
      expect(second.cloud.reconciled.failedRooms).toContain(roomId);
      expect(second.cloud.reconciled.stoppedProcesses).toContain(stray);
      for (let i = 0; i < 20 && processTreeAlive(stray); i++) await new Promise((r) => setTimeout(r, 50));
      expect(processTreeAlive(stray)).toBe(false);

      const call2 = jsonClient(second.cloud.apiUrl);
      const token = (await call2('POST', '/v1/dev/tokens', { body: { account: 'bob' } })).body.access_token;
      const { body } = await call2('GET', `/v1/rooms/${roomId}`, { token });
      expect(body).toMatchObject({ room: expect.anything() });
      expect(body.room).toMatchObject({ state: 'failed', failureReason: 'sidecar-lost' });
      const joined = await call2('POST', `/v1/rooms/${roomId}/join`, { token });
      expect([joined.status, joined.body.error?.code]).toEqual([409, 'NOT_JOINABLE']);
      process.stdout.write(
        `restart with --persist: ${second.cloud.reconciled.failedRooms.length} room(s) of the previous run failed, ` +
          `${second.cloud.reconciled.stoppedProcesses.length} leftover process(es) stopped, join → ${joined.status}\n`,
      );
      // The new run works as usual.
      const fresh = await call2('POST', '/v1/rooms', { token, body: { gameId: 'ok', version: '1' } });
      expect(fresh.status).toBe(201);
    } finally {
      expect(await second.stop()).toEqual([]);
    }
  }, 120_000);
});
