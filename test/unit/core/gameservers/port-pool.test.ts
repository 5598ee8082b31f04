import { NoHealthyHostError } from '../../../../core/gameservers/errors';
import { PortPool } from '../../../../core/gameservers/port-pool';

const alwaysFree = async () => true;

describe('PortPool', () => {
  it('never hands one port to two of 50 concurrent spawns', async () => {
    const pool = new PortPool(38_000, 38_199);
    // The probe yields to the event loop, as the real bind probe does, so allocations interleave.
    const probe = async () => new Promise<boolean>((resolve) => setImmediate(() => resolve(true)));
    const grants = await Promise.all(Array.from({ length: 50 }, () => pool.allocate(2, probe)));
    const ports = grants.flat();
    expect(ports).toHaveLength(100);
    expect(new Set(ports).size).toBe(100);
    expect(pool.inUse).toBe(100);
  });

  it('skips ports another process holds', async () => {
    const pool = new PortPool(100, 104);
    const held = new Set([100, 101]);
    expect(await pool.allocate(2, async (port) => !held.has(port))).toEqual([102, 103]);
  });

  it('refuses with NoHealthyHostError when the range is exhausted, and keeps nothing of the failed grant', async () => {
    const pool = new PortPool(100, 102);
    await pool.allocate(2, alwaysFree);
    await expect(pool.allocate(2, alwaysFree)).rejects.toBeInstanceOf(NoHealthyHostError);
    expect(pool.inUse).toBe(2);
  });

  it('gives released ports out again', async () => {
    const pool = new PortPool(100, 101);
    const first = await pool.allocate(2, alwaysFree);
    pool.release(first);
    expect((await pool.allocate(2, alwaysFree)).sort()).toEqual([100, 101]);
  });
});
