import type { Ban } from '../../../core/abuse/bans';
import type { Bans } from '../../../core/abuse/ban-store';

/**
 * `Bans` in memory, for unit tests. Like the table: one ban per account, `put` replaces,
 * expired bans still read back (judging them is the caller's job), `delete` hands back what
 * it removed, and every answer is a copy.
 */
export class InMemoryBans implements Bans {
  private readonly items = new Map<string, Ban>();

  async put(ban: Ban): Promise<void> {
    this.items.set(ban.account, structuredClone(ban));
  }

  async find(account: string): Promise<Ban | undefined> {
    const ban = this.items.get(account);
    return ban && structuredClone(ban);
  }

  async delete(account: string): Promise<Ban | undefined> {
    const ban = this.items.get(account);
    this.items.delete(account);
    return ban;
  }
}
