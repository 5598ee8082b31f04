import type { Principal } from './token-model';

/**
 * Tokens whose signature and claims were verified, so a player's next call with the same
 * token skips the signature check (a client sends one token for many calls; on the join path
 * the check was a tenth of the CPU). Keyed by the exact token string, positive results only.
 * An entry lives until the token's own `exp`, and never longer than `maxAgeMs`: with the
 * key set's own maximum age, that bounds how long a key withdrawn from the key set keeps
 * working (`keyWithdrawalBoundMs` in tokens.ts). Bounded in size: the oldest entry goes first.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, { readonly principal: Principal; readonly until: number }>();

  constructor(private readonly limits: { readonly maxEntries: number; readonly maxAgeMs: number }) {}

  get(token: string, now: number): Principal | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (now >= entry.until) {
      this.entries.delete(token);
      return undefined;
    }
    return entry.principal;
  }

  /** `expiresAt`: the token's `exp` in epoch seconds, if it has one. */
  set(token: string, principal: Principal, expiresAt: number | undefined, now: number): void {
    const until = Math.min(now + this.limits.maxAgeMs, expiresAt === undefined ? Infinity : expiresAt * 1000);
    if (until <= now) return;
    this.entries.delete(token);
    this.entries.set(token, { principal, until });
    while (this.entries.size > this.limits.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  get size(): number {
    return this.entries.size;
  }
}
