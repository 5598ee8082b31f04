import { leaseRenewBeforeMs, leaseTermMs, leasedPermits, PermitLeases } from '../../../../core/abuse/permit-leases';
import { afterTheRequestMs } from '../../../../core/infra/later';
import type { RateLimitPolicy } from '../../../../core/abuse/rate-limit';
import { InMemoryLeaseStore } from '../../../helpers/fakes/permit-leases';
import { heldLater } from '../../../helpers/held-later';

const policy: RateLimitPolicy = { action: 'join', limit: 20, windowS: 60 };

describe('permit leases', () => {
  it('admits each account once per window per held slot, from memory', async () => {
    const leases = new PermitLeases(new InMemoryLeaseStore(), policy);
    const now = new Date('2030-01-01T00:00:00Z');
    await leases.ready(now);
    const admitted = Array.from({ length: 10 }, () => leases.tryAdmit('alice', now)).filter(Boolean).length;
    expect(admitted).toBe(leasedPermits(20));
    expect(leases.tryAdmit('bob', now)).toBe(true);
    const nextWindow = new Date(now.getTime() + 60_001);
    await leases.ready(nextWindow);
    expect(leases.tryAdmit('alice', nextWindow)).toBe(true);
  });

  it('renews in the background, begun a little after the request that found the renewal due', async () => {
    const store = new InMemoryLeaseStore();
    const held = heldLater();
    const leases = new PermitLeases(store, policy, held.later);
    const now = new Date('2030-01-01T00:00:00Z');
    await leases.ready(now);
    const acquisitions = store.requests.length;
    const due = new Date(now.getTime() + leaseTermMs - leaseRenewBeforeMs + 1);
    // Nothing to wait for, nothing asked of the store yet, and one renewal for every request that finds it due.
    expect(leases.settled(due)).toBe(true);
    expect(leases.settled(due)).toBe(true);
    expect(store.requests.length).toBe(acquisitions);
    expect(held.delays()).toEqual([afterTheRequestMs]);
    held.beginAll();
    expect(store.requests.length).toBe(acquisitions + 1);
    await leases.ready(new Date(due.getTime() + afterTheRequestMs));
    // Renewed: it admits past the first lease's end.
    const pastFirst = new Date(now.getTime() + leaseTermMs);
    expect(leases.tryAdmit('alice', pastFirst)).toBe(true);
  });

  it('waits for a stalled first acquisition at most the bound given, and admits once it lands', async () => {
    const store = new InMemoryLeaseStore();
    let land: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => (land = resolve));
    const leases = new PermitLeases(
      { tryLease: async (p, request) => stalled.then(() => store.tryLease(p, request)) },
      policy,
    );
    const now = new Date('2030-01-01T00:00:00Z');
    // Back once the bound has passed (the store never answered), without the leases: the
    // caller counts in the log instead.
    await leases.ready(now, 50);
    expect(leases.tryAdmit('alice', now)).toBe(false);
    land();
    await leases.ready(now);
    expect(leases.tryAdmit('alice', now)).toBe(true);
  });

  it('never lets processes that take over each other’s slots admit one account more than the leased permits in any window', async () => {
    const store = new InMemoryLeaseStore();
    const processes = Array.from({ length: 3 }, () => new PermitLeases(store, policy));
    const admissions: number[] = [];
    const start = Date.parse('2030-01-01T00:00:00Z');
    // Ten simulated minutes, a request every 250 ms. Each process serves 75 s and then stops
    // (as a Lambda frozen or recycled does) while the next one takes over: its slots pass on
    // only once nothing it admitted can still be in a window.
    for (let t = start; t < start + 10 * 60_000; t += 250) {
      const now = new Date(t);
      const active = processes[Math.floor((t - start) / 75_000) % processes.length];
      if (!active) throw new Error('no process');
      await active.ready(now);
      if (active.settled(now) && active.tryAdmit('alice', now)) admissions.push(t);
    }
    const worstWindow = Math.max(
      ...admissions.map((from) => admissions.filter((t) => t >= from && t < from + 60_000).length),
    );
    expect(admissions.length).toBeGreaterThan(leasedPermits(20));
    expect(worstWindow).toBeLessThanOrEqual(leasedPermits(20));
  });

  it('a process whose slots another holds admits nothing from leases until they are reusable', async () => {
    const store = new InMemoryLeaseStore();
    const first = new PermitLeases(store, policy);
    const second = new PermitLeases(store, policy);
    const now = new Date('2030-01-01T00:00:00Z');
    await first.ready(now);
    await second.ready(now);
    expect(second.tryAdmit('alice', now)).toBe(false);
    const reusable = new Date(now.getTime() + leaseTermMs + 60_000 + 1_000);
    await second.ready(reusable);
    expect(second.tryAdmit('alice', reusable)).toBe(true);
  });
});
