import { banInForce, gateBanOf, type Ban } from '../../../core/abuse/bans';
import type { BanRestored, Bans } from '../../../core/abuse/ban-store';
import type { RateLimitPolicy } from '../../../core/abuse/rate-limit';
import { InMemoryRateLimits } from './rate-limits';

/**
 * `Bans` in memory, for unit tests. Like the table: one ban per account, `put` replaces and
 * mirrors the ban onto the account's gates in `rates` (lifting removes it there), expired bans
 * still read back (judging them is the caller's job), `delete` hands back what it removed,
 * and every answer is a copy.
 */
export class InMemoryBans implements Bans {
  private readonly items = new Map<string, Ban>();

  constructor(readonly rates: InMemoryRateLimits = new InMemoryRateLimits()) {}

  async put(ban: Ban, gates: readonly RateLimitPolicy[]): Promise<void> {
    this.items.set(ban.account, structuredClone(ban));
    for (const { action } of gates) this.rates.mirrorBan(ban.account, action, gateBanOf(ban));
  }

  async find(account: string): Promise<Ban | undefined> {
    const ban = this.items.get(account);
    return ban && structuredClone(ban);
  }

  async delete(account: string, gates: readonly RateLimitPolicy[]): Promise<Ban | undefined> {
    const ban = this.items.get(account);
    if (!ban) return undefined;
    this.items.delete(account);
    for (const { action } of gates) this.rates.mirrorBan(account, action, undefined);
    return ban;
  }

  async restore(ban: Ban, gates: readonly RateLimitPolicy[], now: Date): Promise<BanRestored> {
    if (this.items.get(ban.account)?.createdAt !== ban.createdAt) return 'changed';
    if (!banInForce(ban, now)) {
      this.items.delete(ban.account);
      return 'deleted';
    }
    await this.put(ban, gates);
    return 'mirrored';
  }
}
