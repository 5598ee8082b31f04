import { AccountBannedError, InviteRateLimitedError } from '../../../../core/abuse/errors';
import { DependencyUnavailableError } from '../../../../core/errors';
import {
  InviteeBannedError,
  InviteeFullError,
  InviterNotArbiterError,
  InviterNotMemberError,
  NoInvitingArbiterError,
} from '../../../../core/invites/errors';
import { inviteToRoom, type InviteDependencies } from '../../../../core/invites/invite';
import { liveInvites, maxLiveInvitesPerAccount } from '../../../../core/invites/invite-store';
import { keys } from '../../../../core/infra/keys';
import { RoomFullError, RoomNotJoinableError } from '../../../../core/rooms/join-errors';
import type { Room } from '../../../../core/rooms/model';
import type { Item } from '../../../../core/rooms/room-expression';
import type { RoomStore } from '../../../../core/rooms/room-store';
import { aRoom } from '../../../helpers/factories';
import { MemoryInviteStore } from '../../../helpers/fakes/invites';
import { memoryRoomStore, otherItemKey } from '../../../helpers/fakes/rooms';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const reservedMs = 45_000;
const timeouts = { reservedMs, readyMs: null, inactiveMs: null, sessionEmptyMs: null };

/** A ready session of `members` (each holding a slot for a day), alice first. */
async function session(rooms: RoomStore, members: readonly string[], overrides: Partial<Room> = {}): Promise<Room> {
  const room = aRoom({
    maxPlayers: 4,
    players: members.length,
    constants: { maxMembers: 4, visibility: 'open', timeouts, custom: {} },
    properties: { joinability: 'inviteOnly', custom: {} },
    ...overrides,
  });
  const createdAt = new Date(t0).toISOString();
  const expiresAt = new Date(t0 + 86_400_000).toISOString();
  await rooms.createWithMember(
    room,
    members.map((account) => ({ account, keyHash: `h-${account}`, scopes: [], createdAt, expiresAt })),
  );
  return room;
}

function world(options: { banned?: readonly string[]; rateLimited?: boolean } = {}) {
  const others = new Map<string, Item>();
  const rooms = memoryRoomStore({}, others);
  const invites = new MemoryInviteStore(others);
  const deps: InviteDependencies = {
    rooms,
    invites,
    abuse: {
      assertInviteAllowed: async (account) => {
        if (options.rateLimited) {
          throw new InviteRateLimitedError(account, { action: 'invite', limit: 1, windowS: 60, retryAfterS: 5 });
        }
        if (options.banned?.includes(account)) throw new AccountBannedError(account);
      },
      firstBanned: async (accounts) => accounts.find((a) => options.banned?.includes(a)),
    },
    now: () => new Date(t0),
    sleep: async () => undefined,
  };
  return { rooms, invites, deps, others };
}

const invite = (deps: InviteDependencies, roomId: string, inviter: string, accounts: string[]) =>
  inviteToRoom({ roomId, inviter, accounts }, deps);

describe('inviteToRoom', () => {
  it("reserves an invited member (i: the inviter, fixed expiry now + reservedMs) and writes the invitee's entry", async () => {
    const { rooms, invites, deps } = world();
    const room = await session(rooms, ['alice']);
    const result = await invite(deps, room.roomId, 'alice', ['bob', 'bob', 'carol']);
    expect(result).toMatchObject({ invited: ['bob', 'carol'], invitedBy: 'alice', expiresAt: t0 + reservedMs });
    const read = await rooms.read(room.roomId);
    expect(read?.room.players).toBe(3);
    expect(read?.doc.members.bob).toMatchObject({ s: 0, t: t0, e: t0 + reservedMs, i: 'alice' });
    expect(read?.doc.members.bob?.k).toBeUndefined();
    expect(liveInvites(await invites.read('bob'), t0)).toEqual([
      { roomId: room.roomId, invitedBy: 'alice', expiresAt: new Date(t0 + reservedMs).toISOString() },
    ]);
  });

  it('leaves a live member as it is and writes nothing for it', async () => {
    const { rooms, invites, deps } = world();
    const room = await session(rooms, ['alice', 'bob']);
    const before = await rooms.read(room.roomId);
    const result = await invite(deps, room.roomId, 'alice', ['bob']);
    expect(result.invited).toEqual([]);
    expect((await rooms.read(room.roomId))?.room.changeNumber).toBe(before?.room.changeNumber);
    expect((await invites.read('bob')).exists).toBe(false);
  });

  it.each([
    ['a banned invitee', { banned: ['mallory'] }, InviteeBannedError],
    ['a rate-limited inviter', { rateLimited: true }, InviteRateLimitedError],
  ] as const)('refuses %s and writes nothing', async (_case, options, error) => {
    const { rooms, invites, deps } = world(options);
    const room = await session(rooms, ['alice']);
    await expect(invite(deps, room.roomId, 'alice', ['bob', 'mallory'])).rejects.toBeInstanceOf(error);
    expect((await rooms.read(room.roomId))?.doc.members.bob).toBeUndefined();
    expect((await invites.read('bob')).exists).toBe(false);
  });

  it('names the banned invitee', async () => {
    const { rooms, deps } = world({ banned: ['mallory'] });
    const room = await session(rooms, ['alice']);
    await expect(invite(deps, room.roomId, 'alice', ['bob', 'mallory'])).rejects.toMatchObject({
      status: 403,
      code: 'BANNED',
      details: { account: 'mallory' },
    });
  });

  it('refuses an inviter that holds no live slot (403)', async () => {
    const { rooms, deps } = world();
    const room = await session(rooms, ['alice']);
    await expect(invite(deps, room.roomId, 'eve', ['bob'])).rejects.toBeInstanceOf(InviterNotMemberError);
  });

  it("lets only a session's member arbiter invite; in a dedicated room any live member may", async () => {
    const { rooms, deps } = world();
    const hosted = await session(rooms, ['alice', 'bob'], {
      hosting: 'peerHosted',
      host: { epoch: 1, account: 'alice', seenAt: t0 },
    });
    await expect(invite(deps, hosted.roomId, 'bob', ['carol'])).rejects.toBeInstanceOf(InviterNotArbiterError);
    await expect(invite(deps, hosted.roomId, 'alice', ['carol'])).resolves.toMatchObject({ invited: ['carol'] });
    const dedicated = await session(rooms, ['alice', 'bob'], { host: { epoch: 1, seenAt: t0 } });
    await expect(invite(deps, dedicated.roomId, 'bob', ['carol'])).resolves.toMatchObject({ invited: ['carol'] });
  });

  it('a peer-hosted session asking for an arbiter takes no invite while none is elected (409); one asking for none does', async () => {
    const { rooms, deps } = world();
    const constants = { maxMembers: 4, visibility: 'open' as const, timeouts, custom: {} };
    const asks = await session(rooms, ['alice', 'bob'], {
      hosting: 'peerHosted',
      constants: { ...constants, migrateHost: true },
    });
    const refused = invite(deps, asks.roomId, 'alice', ['carol']);
    await expect(refused).rejects.toBeInstanceOf(NoInvitingArbiterError);
    await expect(refused).rejects.toMatchObject({ code: 'CONFLICT', message: expect.stringMatching(/arbiter alone/) });
    const none = await session(rooms, ['alice', 'bob'], { hosting: 'peerHosted', constants });
    await expect(invite(deps, none.roomId, 'bob', ['carol'])).resolves.toMatchObject({ invited: ['carol'] });
  });

  it('refuses what does not fit whole with ROOM_FULL, and a closed room with NOT_JOINABLE', async () => {
    const { rooms, deps } = world();
    const room = await session(rooms, ['alice', 'bob']);
    await expect(invite(deps, room.roomId, 'alice', ['c1', 'c2', 'c3'])).rejects.toBeInstanceOf(RoomFullError);
    expect((await rooms.read(room.roomId))?.room.players).toBe(2);
    const closed = await session(rooms, ['alice'], { properties: { joinability: 'closed', custom: {} } });
    await expect(invite(deps, closed.roomId, 'alice', ['bob'])).rejects.toBeInstanceOf(RoomNotJoinableError);
  });

  it(`bounds an account's live invites at ${maxLiveInvitesPerAccount}, pruning expired ones in the same write`, async () => {
    const { rooms, invites, deps, others } = world();
    const entries = Object.fromEntries(
      Array.from({ length: maxLiveInvitesPerAccount }, (_, i) => [`r${i}`, { by: 'x', exp: t0 + 1_000 }]),
    );
    others.set(otherItemKey(keys.accountInvites('bob')), { ...keys.accountInvites('bob'), invites: entries });
    const room = await session(rooms, ['alice']);
    const refused = await invite(deps, room.roomId, 'alice', ['bob']).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InviteeFullError);
    expect(refused).toMatchObject({ status: 409, details: { account: 'bob', limit: maxLiveInvitesPerAccount } });
    expect((await rooms.read(room.roomId))?.doc.members.bob).toBeUndefined();

    // Past their expiry they count no more, and the invite's own write removes them.
    await invite({ ...deps, now: () => new Date(t0 + 1_000) }, room.roomId, 'alice', ['bob']);
    expect(Object.keys((await invites.read('bob')).invites)).toEqual([room.roomId]);
  });

  it('judges again on a refused transaction, and answers 503 when the room never holds still', async () => {
    const { rooms, deps } = world();
    const room = await session(rooms, ['alice']);
    let refusals = 1;
    const flaky: InviteDependencies = {
      ...deps,
      rooms: {
        read: (roomId) => rooms.read(roomId),
        transactWrite: (roomId, write, alongside) =>
          refusals-- > 0
            ? Promise.resolve({ state: 'Refused', at: 'room' })
            : rooms.transactWrite(roomId, write, alongside),
      },
    };
    await expect(invite(flaky, room.roomId, 'alice', ['bob'])).resolves.toMatchObject({ invited: ['bob'] });
    refusals = Infinity;
    await expect(invite(flaky, room.roomId, 'alice', ['carol'])).rejects.toBeInstanceOf(DependencyUnavailableError);
  });
});
