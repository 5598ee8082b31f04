import { AccountBannedError } from '../../../../core/abuse/errors';
import { PlatformCache } from '../../../../core/infra/platform-cache';
import { claimWrite, classifyClaimFailure, reclaimAndClaimWrite } from '../../../../core/rooms/join-conditions';
import { joinRoom, type JoinRoomDependencies } from '../../../../core/rooms/join';
import { PartyMemberRefusedError, RoomFullError } from '../../../../core/rooms/join-errors';
import { roomConditions as is } from '../../../../core/rooms/room-conditions';
import type { RoomStore } from '../../../../core/rooms/room-store';
import { memoryRoomStore } from '../../../helpers/fakes/rooms';
import { aRoom } from '../../../helpers/factories';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const seat = (account: string) => ({ account, keyHash: `h-${account}`, member: { s: 0, t: t0 } });
const party = { members: ['alice', 'bob', 'carol'].map(seat), maxPlayers: 4 };

describe('a party claim is one conditional write for every member', () => {
  it('adds each newcomer only where the whole party fits: playersBelow(maxPlayers − 3 + 1)', () => {
    const write = claimWrite(party, new Date(t0));
    const condition = JSON.stringify(write.condition);
    for (const account of ['alice', 'bob', 'carol']) {
      expect(condition).toContain(JSON.stringify(is.memberAbsent(account)));
    }
    expect(condition).toContain(JSON.stringify(is.playersBelow(2)));
    expect(write.change.add).toEqual([[['players'], 3]]);
    expect(write.change.set?.map(([path]) => path)).toEqual([
      ['members', 'alice'],
      ['members', 'bob'],
      ['members', 'carol'],
    ]);
  });

  it('re-keys a member holding a live slot in the same write, while it is as read, without a second slot', () => {
    const held = { bob: { member: { s: 2, t: t0 - 5, n: 7 }, keyHash: 'h-old' } };
    const write = claimWrite({ ...party, held }, new Date(t0));
    const condition = JSON.stringify(write.condition);
    expect(condition).toContain(JSON.stringify(is.memberUnchanged('bob', t0 - 5)));
    expect(condition).toContain(JSON.stringify(is.keyMatches('bob', 'h-old')));
    expect(condition).not.toContain(JSON.stringify(is.memberAbsent('bob')));
    expect(condition).toContain(JSON.stringify(is.playersBelow(3)));
    expect(write.change.add).toEqual([[['players'], 2]]);
    expect(write.change.set).toContainEqual([['members', 'bob', 'k'], 'h-bob']);
  });

  it('reclaims expired members in the same write, counting them toward the room the party needs', () => {
    const expired = [{ account: 'dave', member: { s: 0, t: t0 - 60_000, e: t0 - 1 }, keyHash: 'h-dave' }];
    const write = reclaimAndClaimWrite({ ...party, expired, maxPlayers: 4 }, new Date(t0));
    expect(JSON.stringify(write.condition)).toContain(JSON.stringify(is.playersBelow(3)));
    expect(write.change.add).toEqual([[['players'], 2]]);
    expect(write.change.remove).toEqual([['members', 'dave']]);
  });
});

describe('classifyClaimFailure for a party', () => {
  const item = (members: Record<string, unknown>, players: number) => ({
    state: 'ready',
    players,
    maxPlayers: 4,
    reservationTimeoutS: 30,
    readyAt: new Date(t0).toISOString(),
    members,
    gone: {},
  });

  it('Full when the whole party does not fit, although one more player would', () => {
    const live = { x: { s: 2, t: t0 }, y: { s: 2, t: t0 } };
    expect(classifyClaimFailure(item(live, 2), party, t0)).toEqual({ state: 'Full' });
  });

  it('Reclaim when expired members make room for the whole party', () => {
    const members = { x: { s: 2, t: t0 }, y: { s: 0, t: t0 - 60_000, e: t0 - 1, k: 'h-y' } };
    expect(classifyClaimFailure(item(members, 2), party, t0)).toMatchObject({
      state: 'Reclaim',
      expired: [{ account: 'y' }],
    });
  });

  it('Replan with the members holding live slots, to re-key them in the next write', () => {
    const bob = { s: 2, t: t0, k: 'h-old' };
    expect(classifyClaimFailure(item({ bob }, 1), party, t0)).toEqual({
      state: 'Replan',
      held: { bob: { member: bob, keyHash: 'h-old' } },
    });
  });
});

describe('joinRoom with a party', () => {
  const room = aRoom({ state: 'ready', placement: { taskId: 't', host: 'h', ports: [1] }, maxPlayers: 4, players: 0 });
  let sessions: RoomStore;
  let clock: number;
  const deps = (extra: Partial<JoinRoomDependencies> = {}): JoinRoomDependencies => ({
    sessions,
    cache: new PlatformCache(),
    now: () => new Date(clock),
    sleep: async (ms) => {
      clock += ms;
    },
    answerBy: new Date(Date.now() + 60_000),
    heartbeatTimeoutS: 3_600,
    ...extra,
  });
  const command = (account: string, members: string[]) => ({
    roomId: room.roomId,
    account,
    scopes: [],
    party: members.map((m) => ({ account: m, scopes: [] })),
  });
  const accounts = async () => Object.keys((await sessions.read(room.roomId))!.doc.members).sort();

  beforeEach(async () => {
    clock = Date.now();
    sessions = memoryRoomStore();
    await sessions.createWithMember(room);
  });

  it('seats every member or none, and answers every reservation, the caller first', async () => {
    await joinRoom({ roomId: room.roomId, account: 'x', scopes: [] }, deps());
    await joinRoom({ roomId: room.roomId, account: 'y', scopes: [] }, deps());
    await expect(joinRoom(command('alice', ['bob', 'carol']), deps())).rejects.toBeInstanceOf(RoomFullError);
    expect(await accounts()).toEqual(['x', 'y']);
    await joinRoom({ roomId: room.roomId, account: 'z', scopes: [] }, deps()).catch(() => undefined);
    expect(await accounts()).toEqual(['x', 'y', 'z']);
  });

  it('answers each member its own key, and the room holds them all', async () => {
    const result = await joinRoom(command('alice', ['bob', 'carol']), deps());
    expect(result.reservations?.map((r) => r.account)).toEqual(['alice', 'bob', 'carol']);
    expect(new Set(result.reservations?.map((r) => r.key)).size).toBe(3);
    expect(result.reservation.key).toBe(result.reservations?.[0]?.key);
    expect(await accounts()).toEqual(['alice', 'bob', 'carol']);
    expect((await sessions.read(room.roomId))!.room.players).toBe(3);
  });

  it('a member already in the room keeps its slot (same member number), re-keyed in the same write', async () => {
    await joinRoom({ roomId: room.roomId, account: 'bob', scopes: [] }, deps());
    const before = (await sessions.read(room.roomId))!.doc.members.bob!;
    const result = await joinRoom(command('alice', ['bob', 'carol']), deps());
    const after = (await sessions.read(room.roomId))!;
    expect(after.room.players).toBe(3);
    expect(after.doc.members.bob!.n).toBe(before.n);
    expect(after.doc.members.bob!.k).not.toBe(before.k);
    expect(result.reservations?.map((r) => r.account)).toEqual(['alice', 'bob', 'carol']);
  });

  it("a banned member's refusal undoes the whole party's claim and names the member", async () => {
    const checks = (account: string) => ({
      known: async () => undefined,
      decide: () => (account === 'bob' ? Promise.reject(new AccountBannedError('bob')) : Promise.resolve()),
    });
    const error = await joinRoom(
      command('alice', ['bob', 'carol']),
      deps({ accountChecks: checks('alice'), partyChecks: checks }),
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PartyMemberRefusedError);
    expect(error).toMatchObject({ code: 'BANNED', status: 403, details: { account: 'bob' } });
    expect(await accounts()).toEqual([]);
    expect((await sessions.read(room.roomId))!.room.players).toBe(0);
  });

  it('a solo join answers exactly as before: no reservations list', async () => {
    const result = await joinRoom({ roomId: room.roomId, account: 'alice', scopes: [] }, deps());
    expect(result).not.toHaveProperty('reservations');
  });
});
