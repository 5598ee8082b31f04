import { ServerSlotStore } from '../../../core/gameservers/server-slot-store';
import { NoHealthyHostError } from '../../../core/gameservers/errors';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The running-server caps on real DynamoDB Local: counters and leases in one transaction,
 * so parallel creates beyond a cap are refused however they interleave, and releases give
 * exactly one slot back per room.
 */
let platform: TestPlatform;
let slots: ServerSlotStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  slots = new ServerSlotStore(platform.db, platform.tableName);
});
afterAll(() => platform.close());

const lease = (roomId: string, gameId = 'arena') => ({
  roomId,
  gameId,
  version: '1',
  acquiredAt: new Date().toISOString(),
});

describe('ServerSlotStore', () => {
  it('grants exactly K of N parallel acquires against a per-configuration cap of K', async () => {
    const n = 16;
    const k = 5;
    const outcomes = await Promise.allSettled(
      Array.from({ length: n }, (_, i) =>
        slots.acquire(lease(`p-${i}`, 'parallel'), { global: 1000, configuration: k }),
      ),
    );

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(k);
    const refused = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    expect(refused).toHaveLength(n - k);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(NoHealthyHostError);
      expect(r.reason.message).toContain('this configuration already runs its maximum of 5');
    }
    expect(await slots.running('parallel', '1')).toBe(k);
    expect((await slots.leases()).filter((l) => l.gameId === 'parallel')).toHaveLength(k);
  });

  it('applies the global cap across configurations, and a release frees exactly one slot, once', async () => {
    const before = await slots.running();
    const caps = { global: before + 2, configuration: 100 };
    await slots.acquire(lease('g-1', 'one'), caps);
    await slots.acquire(lease('g-2', 'two'), caps);
    await expect(slots.acquire(lease('g-3', 'three'), caps)).rejects.toThrow(/the deployment already runs its maximum/);

    expect(await slots.release('g-1')).toBe(true);
    expect(await slots.release('g-1')).toBe(false);
    expect(await slots.running()).toBe(before + 1);
    expect(await slots.running('one', '1')).toBe(0);
    await slots.acquire(lease('g-3', 'three'), caps);
    expect(await slots.running()).toBe(before + 2);
  });

  it('takes a retried acquire for the same room as the slot it already holds', async () => {
    const caps = { global: 1000, configuration: 1 };
    await slots.acquire(lease('again', 'retry'), caps);
    await slots.acquire(lease('again', 'retry'), caps);
    expect(await slots.running('retry', '1')).toBe(1);
  });
});
