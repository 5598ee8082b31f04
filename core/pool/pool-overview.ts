import * as z from 'zod';
import type { PoolStore } from './pool-store';

const standbyServerViewSchema = z
  .strictObject({
    roomId: z.string(),
    state: z
      .enum(['starting', 'ready'])
      .describe('`starting` until its game called `inited`; `ready`: a create may take it.'),
    since: z.iso.datetime().describe('When the pool started it.'),
  })
  .meta({ id: 'StandbyServer' });

export const warmPoolsViewSchema = z
  .strictObject({
    pools: z.array(
      z.strictObject({
        gameId: z.string(),
        version: z.string(),
        unsupported: z
          .strictObject({ at: z.iso.datetime(), detail: z.string() })
          .optional()
          .describe('Its game refused the standby protocol: never pooled again until the configuration is PUT anew.'),
        regions: z.array(
          z.strictObject({
            region: z.string(),
            target: z
              .number()
              .int()
              .describe(
                "The configuration's `standby`: servers the pool keeper keeps here (0: the pool is being emptied).",
              ),
            servers: z.array(standbyServerViewSchema),
          }),
        ),
      }),
    ),
  })
  .meta({ id: 'WarmPools' });
export type WarmPoolsView = z.output<typeof warmPoolsViewSchema>;

/**
 * Every warm pool as its bookkeeping holds it (`GET /v1/admin/pool`): each pooled
 * configuration (the registry, one partition) and its pools, one per region it has had
 * standby servers in. One read per pooled configuration, never a scan. A region without a pool
 * item yet (the keeper has not started a server there) is not listed.
 */
export async function warmPoolsView(pool: Pick<PoolStore, 'registered' | 'pools'>): Promise<WarmPoolsView> {
  const registered = await pool.registered();
  const pools = await Promise.all(
    registered.map(async (entry) => {
      const regions = await pool.pools(entry.gameId, entry.version);
      return {
        gameId: entry.gameId,
        version: entry.version,
        ...(entry.unsupported ? { unsupported: entry.unsupported } : {}),
        regions: regions
          .map(({ key, servers }) => ({
            region: key.region,
            target: entry.standby,
            servers: servers.map((s) => ({ roomId: s.roomId, state: s.state, since: s.startedAt })),
          }))
          .sort((a, b) => (a.region < b.region ? -1 : 1)),
      };
    }),
  );
  return {
    pools: pools.sort((a, b) =>
      a.gameId === b.gameId ? (a.version < b.version ? -1 : 1) : a.gameId < b.gameId ? -1 : 1,
    ),
  };
}
