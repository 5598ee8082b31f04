import middy from '@middy/core';
import { GameConfigurationNotFoundError } from '../../core/gameservers/errors';
import { childLogger } from '../../core/infra/logger';
import { platform } from '../dependencies';

const log = childLogger('pool-keeper');

/**
 * Tops up every warm pool (core/pool/warm-pool.ts): each pooled configuration gets its
 * `standby` servers in each region that has hosts (the deployment's region when the fleet
 * names none), and loses the ready ones beyond that. A configuration whose game refused the
 * pool, or that no longer exists, is skipped. Its own scheduled function, every minute (the
 * local cloud runs it after each sweep): it starts servers, which the sweeper may not.
 */
export async function keepPools(): Promise<{ started: number }> {
  const p = platform();
  const pooled = (await p.pool.registered()).filter((c) => !c.unsupported);
  if (pooled.length === 0) return { started: 0 };
  const fleet = await p.fleet.read();
  const regions = fleet.regions.length > 0 ? fleet.regions.map((r) => r.name) : [p.config.roomRegion];
  const served = regions.filter((region) => fleet.hosts.length === 0 || fleet.hosts.some((h) => h.region === region));
  let total = 0;
  for (const entry of pooled) {
    let configuration;
    try {
      configuration = await p.gameConfigurations.get(entry.gameId, entry.version);
    } catch (error) {
      if (error instanceof GameConfigurationNotFoundError) {
        await p.pool.register(entry.gameId, entry.version, 0);
        continue;
      }
      throw error;
    }
    for (const region of served) {
      const started = await p.warmPool.refill(configuration, region).catch((error: Error) => {
        log.warn('could not refill a warm pool', { gameId: entry.gameId, region, error });
        return 0;
      });
      if (started > 0)
        log.info('refilled a warm pool', { gameId: entry.gameId, version: entry.version, region, started });
      total += started;
    }
  }
  return { started: total };
}

export const handler = middy({ timeoutEarlyInMillis: 0 }).handler(keepPools);
