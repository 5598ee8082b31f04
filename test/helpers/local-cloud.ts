import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalCloud, type LocalCloud, type LocalCloudOptions } from '../../local/cloud';
import { processTreeAlive } from './processes';
import { platform } from '../../lambdas/dependencies';
import type { PoolKey, StandbyServer } from '../../core/pool/pool-store';

/** The protocol-only game (test/fixtures/games/protocol-game.mjs), as a configuration's binary. */
export const fixtureGame = join(__dirname, '../fixtures/games/protocol-game.mjs');

export interface TestCloud {
  readonly cloud: LocalCloud;
  /** Stops everything and returns the sidecar pids that are still alive (expected: none). */
  stop(): Promise<number[]>;
}

/**
 * A whole local cloud in this process, with these game configurations written to a
 * temporary configuration file, game output silenced and per-account limits raised.
 * Call its API with `jsonClient(cloud.apiUrl)` or `checkedFetch` (test/helpers/http.ts):
 * both check every answer against docs/openapi.json.
 */
export async function startTestCloud(
  games: { gameId: string; version: string; configuration: Record<string, unknown> }[],
  options: Omit<LocalCloudOptions, 'configPath' | 'port'> = {},
  /** More of the configuration file (`regions`, `templates`). */
  file: Record<string, unknown> = {},
): Promise<TestCloud> {
  const configDir = mkdtempSync(join(tmpdir(), 'roomkeeper-test-cloud-'));
  const configPath = join(configDir, 'roomkeeper.local.json');
  writeFileSync(configPath, JSON.stringify({ region: 'local', games, ...file }));
  const cloud = await startLocalCloud({
    port: 0,
    configPath,
    gameOutput: 'ignore',
    rateLimits: { createsPerMinute: 1000, joinsPerMinute: 1000 },
    ...options,
  });
  return {
    cloud,
    stop: async () => {
      const pids = cloud.fleet.pids;
      await cloud.stop();
      rmSync(configDir, { recursive: true, force: true });
      return pids.filter(processTreeAlive);
    },
  };
}

/**
 * The ready standby servers of one pool, once there are at least `count` (or the time is up).
 * A server a create took stays listed until its removal just after: its room, no longer
 * standby, is what says it was taken.
 */
export async function readyStandby(pool: PoolKey, count = 1, timeoutMs = 30_000): Promise<StandbyServer[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const listed = (await platform().pool.servers(pool)).filter((s) => s.state === 'ready');
    const rooms = await Promise.all(listed.map((s) => platform().rooms.find(s.roomId)));
    const ready = listed.filter((_, i) => rooms[i]?.standby === true);
    if (ready.length >= count || Date.now() > deadline) return ready;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
