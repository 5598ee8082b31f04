import { randomUUID } from 'node:crypto';
import type { Ban } from '../../../core/abuse/bans';
import type { Bans } from '../../../core/abuse/ban-store';
import type { RateLimitPolicy } from '../../../core/abuse/rate-limit';
import type { RateLimits } from '../../../core/abuse/rate-limit-store';

const t0 = new Date('2026-01-01T12:00:00.000Z');
const after = (ms: number) => new Date(t0.getTime() + ms);
const join: RateLimitPolicy = { action: 'join', limit: 3, windowS: 60 };
const create: RateLimitPolicy = { action: 'create', limit: 2, windowS: 60 };
const gates = [join, create];

const aBan = (overrides: Partial<Ban> = {}): Ban => ({
  account: `player-${randomUUID().slice(0, 8)}`,
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'ops',
  ...overrides,
});

/** A `Bans` and the `RateLimits` its bans are mirrored onto, sharing one table (or memory). */
export interface BansSubject {
  readonly bans: Bans;
  readonly rates: RateLimits;
}

/** The rules every `Bans` keeps, for the fake (unit) and the store (integration). */
export function bansContract(subject: () => BansSubject): void {
  it('finds nothing for an account never banned, and deletes nothing', async () => {
    const { bans } = subject();
    await expect(bans.find('never-banned')).resolves.toBeUndefined();
    await expect(bans.delete('never-banned', gates, t0)).resolves.toBeUndefined();
  });

  it('gives back a ban as placed, and a replacement replaces it', async () => {
    const { bans } = subject();
    const ban = aBan({ reason: 'spam' });
    await bans.put(ban, gates, t0);
    await expect(bans.find(ban.account)).resolves.toEqual(ban);
    const replacement = aBan({ account: ban.account, expiresAt: '2026-02-01T00:00:00.000Z' });
    await bans.put(replacement, gates, t0);
    await expect(bans.find(ban.account)).resolves.toEqual(replacement);
  });

  it('still reads back an expired ban: whether it is in force is judged by the caller', async () => {
    const { bans } = subject();
    const expired = aBan({ expiresAt: '2000-01-01T00:00:00.000Z' });
    await bans.put(expired, gates, t0);
    await expect(bans.find(expired.account)).resolves.toEqual(expired);
  });

  it('hands back what it deleted, and the account is free afterwards', async () => {
    const { bans } = subject();
    const ban = aBan();
    await bans.put(ban, gates, t0);
    await expect(bans.delete(ban.account, gates, t0)).resolves.toEqual(ban);
    await expect(bans.find(ban.account)).resolves.toBeUndefined();
  });

  it('refuses a banned account on every gate it was mirrored onto, spending nothing; lifting admits at once', async () => {
    const { bans, rates } = subject();
    const ban = aBan();
    await expect(rates.count(ban.account, join, after(0))).resolves.toEqual({ state: 'Counted', sequence: 1 });
    await bans.put(ban, gates, after(1));
    for (const policy of [join, join, create]) {
      await expect(rates.count(ban.account, policy, after(2))).resolves.toEqual({ state: 'Banned' });
    }
    await expect(rates.count(`${ban.account}-bystander`, join, after(2))).resolves.toMatchObject({ state: 'Counted' });
    await bans.delete(ban.account, gates, after(3));
    // The refused requests spent nothing: the log goes on from its one admission.
    await expect(rates.count(ban.account, join, after(4))).resolves.toEqual({ state: 'Counted', sequence: 2 });
    await expect(rates.count(ban.account, create, after(4))).resolves.toEqual({ state: 'Counted', sequence: 1 });
  });

  it('a timed ban refuses until its end, to the millisecond, with its expiry', async () => {
    const { bans, rates } = subject();
    const ban = aBan({ expiresAt: after(30_000).toISOString() });
    await bans.put(ban, gates, t0);
    await expect(rates.count(ban.account, create, after(29_999))).resolves.toEqual({
      state: 'Banned',
      expiresAt: ban.expiresAt,
    });
    await expect(rates.count(ban.account, create, after(30_000))).resolves.toEqual({ state: 'Counted', sequence: 1 });
  });
}
