import { randomUUID } from 'node:crypto';
import type { Ban } from '../../../core/abuse/bans';
import type { Bans } from '../../../core/abuse/ban-store';

const aBan = (overrides: Partial<Ban> = {}): Ban => ({
  account: `player-${randomUUID().slice(0, 8)}`,
  createdAt: '2026-01-01T00:00:00.000Z',
  createdBy: 'ops',
  ...overrides,
});

/** The rules every `Bans` keeps, for the fake (unit) and the store (integration). */
export function bansContract(subject: () => Bans): void {
  it('finds nothing for an account never banned, and deletes nothing', async () => {
    const bans = subject();
    await expect(bans.find('never-banned')).resolves.toBeUndefined();
    await expect(bans.delete('never-banned')).resolves.toBeUndefined();
  });

  it('gives back a ban as placed, and a replacement replaces it', async () => {
    const bans = subject();
    const ban = aBan({ reason: 'spam' });
    await bans.put(ban);
    await expect(bans.find(ban.account)).resolves.toEqual(ban);
    const replacement = aBan({ account: ban.account, expiresAt: '2026-02-01T00:00:00.000Z' });
    await bans.put(replacement);
    await expect(bans.find(ban.account)).resolves.toEqual(replacement);
  });

  it('still reads back an expired ban: whether it is in force is judged by the caller', async () => {
    const bans = subject();
    const expired = aBan({ expiresAt: '2000-01-01T00:00:00.000Z' });
    await bans.put(expired);
    await expect(bans.find(expired.account)).resolves.toEqual(expired);
  });

  it('hands back what it deleted, and the account is free afterwards', async () => {
    const bans = subject();
    const ban = aBan();
    await bans.put(ban);
    await expect(bans.delete(ban.account)).resolves.toEqual(ban);
    await expect(bans.find(ban.account)).resolves.toBeUndefined();
  });
}
