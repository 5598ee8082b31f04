import { randomUUID } from 'node:crypto';
import type { RateLimitPolicy } from '../../../core/abuse/rate-limit';
import type { RateLimits } from '../../../core/abuse/rate-limit-store';

const policy: RateLimitPolicy = { action: 'join', limit: 3, windowS: 60 };
const t0 = new Date('2026-01-01T12:00:00.000Z');
const after = (ms: number) => new Date(t0.getTime() + ms);
const anAccount = () => `player-${randomUUID().slice(0, 8)}`;

/** The rules every `RateLimits` keeps, for the fake (unit) and the store (integration). */
export function rateLimitsContract(subject: () => RateLimits): void {
  it('admits `limit` requests in a window, numbered, then refuses with the seconds until the oldest leaves', async () => {
    const rates = subject();
    const account = anAccount();
    const answers = [];
    for (const ms of [0, 10_000, 20_000, 30_500]) answers.push(await rates.count(account, policy, after(ms)));
    expect(answers).toEqual([
      { state: 'Counted', sequence: 1 },
      { state: 'Counted', sequence: 2 },
      { state: 'Counted', sequence: 3 },
      // Nobody is admitted before the first admission leaves the window, to the millisecond.
      { state: 'Exhausted', retryAfterS: 30, freeAtMs: after(60_000).getTime() },
    ]);
  });

  it('records nothing for a refused request: the first admission leaving the window frees a slot on time', async () => {
    const rates = subject();
    const account = anAccount();
    for (const ms of [0, 1_000, 2_000]) await rates.count(account, policy, after(ms));
    for (const ms of [5_000, 30_000, 59_999]) {
      await expect(rates.count(account, policy, after(ms))).resolves.toMatchObject({ state: 'Exhausted' });
    }
    await expect(rates.count(account, policy, after(60_000))).resolves.toEqual({ state: 'Counted', sequence: 4 });
    await expect(rates.count(account, policy, after(60_500))).resolves.toEqual({
      state: 'Exhausted',
      retryAfterS: 1,
      freeAtMs: after(61_000).getTime(),
    });
  });

  it('keeps separate logs per account and per action', async () => {
    const rates = subject();
    const account = anAccount();
    for (const ms of [0, 1, 2]) await rates.count(account, policy, after(ms));
    await expect(rates.count(account, policy, after(3))).resolves.toMatchObject({ state: 'Exhausted' });
    await expect(rates.count(anAccount(), policy, after(3))).resolves.toEqual({ state: 'Counted', sequence: 1 });
    await expect(rates.count(account, { ...policy, action: 'create' }, after(3))).resolves.toMatchObject({
      state: 'Counted',
    });
  });

  it('keeps the log when the limit changes: a raised limit admits up to the new one in the window, no more', async () => {
    const rates = subject();
    const account = anAccount();
    for (const ms of [0, 1, 2]) await rates.count(account, policy, after(ms));
    const raised = { ...policy, limit: 4 };
    await expect(rates.count(account, raised, after(3))).resolves.toEqual({ state: 'Counted', sequence: 4 });
    await expect(rates.count(account, raised, after(4))).resolves.toMatchObject({ state: 'Exhausted' });
  });

  it('admits exactly `limit` of a burst of parallel requests', async () => {
    const rates = subject();
    const account = anAccount();
    const answers = await Promise.all(Array.from({ length: 10 }, () => rates.count(account, policy, after(0))));
    expect(answers.filter((a) => a.state === 'Counted')).toHaveLength(3);
    expect(answers.filter((a) => a.state === 'Exhausted')).toHaveLength(7);
  });
}
