import type { StoredMember } from '../../../../core/rooms/document';
import { hostView, judgeClaim } from '../../../../core/rooms/host';
import type { Room } from '../../../../core/rooms/model';
import { holds } from '../../../../core/rooms/room-expression';
import { roomItem } from '../../../../core/rooms/room-item';
import type { SessionRead } from '../../../../core/rooms/room-store';
import { aRoom } from '../../../helpers/factories';

/** The election's rules (core/rooms/host.ts) on one read, judged at `now`, without a store. */
const T = 10_000;
const now = new Date('2026-01-01T00:10:00.000Z');
const active = (n?: number): StoredMember => ({ s: 2, t: 0, ...(n === undefined ? {} : { n }) });

function read(host: Room['host'], members: Record<string, StoredMember>): SessionRead {
  const room = aRoom({
    state: 'ready',
    hosting: 'peerHosted',
    constants: {
      maxMembers: 8,
      visibility: 'open',
      timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
      migrateHost: true,
      hostTimeoutMs: T,
    },
    ...(host ? { host } : {}),
  });
  return { room, doc: { members, gone: {} } };
}

/** What the table would do with the judged write: whether its condition holds on the item as read. */
function outcome(session: SessionRead, caller: string, epoch: number): string {
  const judged = judgeClaim(session, caller, epoch, now);
  if (judged.kind !== 'write') return judged.kind === 'refused' ? judged.error.code : judged.kind;
  return holds(judged.write.condition!, roomItem(session.room, session.doc.members)) ? 'elected' : 'condition fails';
}

describe('judgeClaim', () => {
  const members = { ann: active(5), bob: active(9), cy: active(), dee: active(1) };
  const silentFor = (ms: number, reports?: Record<string, number>) =>
    read({ epoch: 4, account: 'ann', seenAt: now.getTime() - ms, ...(reports ? { reports } : {}) }, members);

  it('names the lowest member number (none: last) as the successor; any active member may claim past T', () => {
    expect(hostView(silentFor(0).room, silentFor(0).doc, now.getTime(), { isMember: true })).toEqual({
      account: 'ann',
      epoch: 4,
      next: 'dee',
    });
    // Before T everyone is told when the host would count as silent (the same wait for all).
    for (const caller of ['dee', 'bob']) {
      expect(judgeClaim(silentFor(T - 500), caller, 4, now)).toMatchObject({
        kind: 'refused',
        error: { code: 'HOST_ALIVE', details: { retryAfterMs: 501 } },
      });
    }
    expect(outcome(silentFor(T), 'dee', 4)).toBe('HOST_ALIVE');
    expect(outcome(silentFor(T + 1), 'dee', 4)).toBe('elected');
    expect(outcome(silentFor(T + 1), 'bob', 4)).toBe('elected');
    expect(outcome(silentFor(T + 1), 'cy', 3)).toBe('STALE_EPOCH');
  });

  it('halves T once a majority of the other active members reported the host after it was last heard', () => {
    const before = now.getTime() - 6_000;
    const late = { bob: now.getTime() - 1_000, dee: now.getTime() - 1_000 };
    expect(outcome(silentFor(6_000, late), 'dee', 4)).toBe('elected');
    // One of three is no majority; a report older than the host's last sign does not count.
    expect(outcome(silentFor(6_000, { bob: now.getTime() - 1_000 }), 'dee', 4)).toBe('HOST_ALIVE');
    expect(outcome(silentFor(6_000, { bob: before - 1, dee: before - 1 }), 'dee', 4)).toBe('HOST_ALIVE');
  });

  it("refuses a claim on a game server's room, and by a member that is not active", () => {
    const dedicated = read({ epoch: 1, seenAt: 0 }, members);
    expect(outcome(dedicated, 'bob', 1)).toBe('HOST_ALIVE');
    const idle = read({ epoch: 1, account: 'ann', seenAt: 0 }, { ann: active(), bob: { s: 3, t: 0, n: 0 } });
    expect(outcome(idle, 'bob', 1)).toBe('FORBIDDEN');
  });
});
