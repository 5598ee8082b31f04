import middy from '@middy/core';
import { GameConfigurationNotFoundError } from '../../core/gameservers/errors';
import { childLogger } from '../../core/infra/logger';
import type { PooledConfiguration } from '../../core/pool/pool-store';
import { platform } from '../dependencies';

const log = childLogger('pool-keeper');

/**
 * Tops up every warm pool (core/pool/warm-pool.ts): each pooled configuration gets its
 * `standby` servers in each region that has hosts (the deployment's region when the fleet
 * names none), and loses the ready ones beyond that. A configuration whose `standby` went to
 * 0, or that was deleted, has every pool emptied: its ready servers retired, in every region
 * it has one; it is deregistered once none is left. A configuration whose game refused the
 * pool is skipped. Its own scheduled function, every minute (the local cloud runs it after
 * each sweep): it starts servers, which the sweeper may not.
 */
export async function keepPools(): Promise<{ started: number; retired: number }> {
  const p = platform();
  const registered = await p.pool.registered();
  const pooled = registered.filter((c) => c.standby > 0 && !c.unsupported);
  let retired = 0;
  for (const entry of registered.filter((c) => c.standby === 0)) retired += await emptyPools(entry);
  if (pooled.length === 0) return { started: 0, retired };
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
        // Deleted without its registration lowered (the delete's second write failed): lowered now.
        const revision = await p.pool.register(entry.gameId, entry.version, 0);
        if (revision !== undefined) retired += await emptyPools({ ...entry, standby: 0, revision });
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
  return { started: total, retired };
}

/**
 * Empties every pool of a configuration that keeps none any more, whatever region it is in,
 * and deregisters the configuration once they are all empty (conditional on nothing having
 * changed since: see PoolStore.deregister). Returns how many servers were retired or dropped.
 */
async function emptyPools(entry: PooledConfiguration): Promise<number> {
  const p = platform();
  const pools = await p.pool.pools(entry.gameId, entry.version);
  let listed = 0;
  let left = 0;
  for (const { key, servers } of pools) {
    listed += servers.length;
    left += await p.warmPool.drain(key).catch((error: Error) => {
      log.warn('could not empty a warm pool', { gameId: key.gameId, region: key.region, error });
      return servers.length;
    });
  }
  if (
    left === 0 &&
    (await p.pool.deregister(
      entry,
      pools.map((pool) => pool.key),
    ))
  ) {
    log.info('warm pool emptied and deregistered', { gameId: entry.gameId, version: entry.version });
  }
  return listed - left;
}

export const handler = middy({ timeoutEarlyInMillis: 0 }).handler(keepPools);
