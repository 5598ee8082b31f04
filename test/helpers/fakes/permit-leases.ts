import type { LeaseOutcome, LeaseRequest, PermitLeaseStore, StoredLease } from '../../../core/abuse/permit-lease-store';
import type { RateLimitPolicy } from '../../../core/abuse/rate-limit';

/**
 * The lease items in memory, for unit tests, with the store's condition: each wanted slot
 * free, ours, or reusable — all or nothing. One item per action and limit, as the store keys
 * them, so join and create leases never share slots.
 */
export class InMemoryLeaseStore implements Pick<PermitLeaseStore, 'tryLease'> {
  private readonly items = new Map<string, Map<number, StoredLease>>();
  /** Every request, in order: a test counts the writes a process made. */
  readonly requests: { readonly policy: RateLimitPolicy; readonly request: LeaseRequest }[] = [];

  /** The slots of one action and limit (the only item when a test uses a single policy). */
  slots(policy: Pick<RateLimitPolicy, 'action' | 'limit'>): Map<number, StoredLease> {
    const key = `${policy.action}#${policy.limit}`;
    let slots = this.items.get(key);
    if (!slots) this.items.set(key, (slots = new Map()));
    return slots;
  }

  tryLease(policy: RateLimitPolicy, request: LeaseRequest): Promise<LeaseOutcome> {
    this.requests.push({ policy, request });
    const slots = this.slots(policy);
    const takeable = request.slots.every((i) => {
      const lease = slots.get(i);
      return !lease || lease.h === request.holder || lease.u <= request.reusableBefore;
    });
    if (!takeable) {
      return Promise.resolve({ leased: false, current: new Map(request.slots.map((i) => [i, slots.get(i)])) });
    }
    for (const i of request.slots) slots.set(i, { h: request.holder, u: request.until });
    return Promise.resolve({ leased: true });
  }
}
