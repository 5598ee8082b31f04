import { inviteToRoom } from '../../../../core/invites/invite';
import { PlatformCache } from '../../../../core/infra/platform-cache';
import { joinRoom, type JoinRoomDependencies } from '../../../../core/rooms/join';
import { RoomNotJoinableError } from '../../../../core/rooms/join-errors';
import type { Room } from '../../../../core/rooms/model';
import type { Item } from '../../../../core/rooms/room-expression';
import type { RoomStore } from '../../../../core/rooms/room-store';
import { ProtocolMismatchError } from '../../../../core/versions/errors';
import { aRoom } from '../../../helpers/factories';
import { MemoryInviteStore } from '../../../helpers/fakes/invites';
import { memoryRoomStore } from '../../../helpers/fakes/rooms';

/**
 * `inviteOnly` admits exactly the invited (core/rooms/join-conditions.ts, the joinability of the
 * claim and of its failure's classification): the invited account's join finds its reserved
 * member and re-keys it; anyone else, and an invite that ran out, is NOT_JOINABLE.
 */
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const reservedMs = 45_000;
const build = 'aaaaaaaaaaaaaaaa';

async function invitedSession(): Promise<{ rooms: RoomStore; room: Room }> {
  const others = new Map<string, Item>();
  const rooms = memoryRoomStore({}, others);
  const room = aRoom({
    maxPlayers: 4,
    players: 1,
    placement: { taskId: 't', host: 'h', ports: [1] },
    address: 'h',
    lastHeartbeatAt: new Date(t0).toISOString(),
    protocol: { h: build },
    constants: {
      maxMembers: 4,
      visibility: 'open',
      timeouts: { reservedMs, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
    },
    properties: { joinability: 'inviteOnly', custom: {} },
  });
  const createdAt = new Date(t0).toISOString();
  await rooms.createWithMember(room, {
    account: 'alice',
    keyHash: 'h-alice',
    scopes: [],
    createdAt,
    expiresAt: new Date(t0 + 86_400_000).toISOString(),
  });
  await inviteToRoom(
    { roomId: room.roomId, inviter: 'alice', accounts: ['bob'] },
    {
      rooms,
      invites: new MemoryInviteStore(others),
      abuse: { assertInviteAllowed: async () => undefined, firstBanned: async () => undefined },
      now: () => new Date(t0),
      sleep: async () => undefined,
    },
  );
  return { rooms, room };
}

function deps(rooms: RoomStore, at: number): JoinRoomDependencies {
  return {
    sessions: rooms,
    cache: new PlatformCache(),
    now: () => new Date(at),
    sleep: async () => undefined,
    answerBy: new Date(at + 1_000),
    heartbeatTimeoutS: 3_600,
  };
}

const join = (rooms: RoomStore, roomId: string, account: string, at = t0 + 1_000, hash?: string) =>
  joinRoom({ roomId, account, scopes: [], ...(hash === undefined ? {} : { protocol: { hash } }) }, deps(rooms, at));

describe('joinRoom into an inviteOnly session', () => {
  it('gives the invited account its reserved slot with a key, and keeps its invite expiry', async () => {
    const { rooms, room } = await invitedSession();
    const joined = await join(rooms, room.roomId, 'bob');
    expect(joined.reservation.key).toEqual(expect.any(String));
    expect(joined.reservation.expiresAt).toBe(new Date(t0 + reservedMs).toISOString());
    const read = await rooms.read(room.roomId);
    expect(read?.room.players).toBe(2);
    expect(read?.doc.members.bob).toMatchObject({ i: 'alice', e: t0 + reservedMs, k: expect.any(String) });
  });

  it('refuses anyone else, and the invited once its invite ran out', async () => {
    const { rooms, room } = await invitedSession();
    await expect(join(rooms, room.roomId, 'carol')).rejects.toBeInstanceOf(RoomNotJoinableError);
    await expect(join(rooms, room.roomId, 'bob', t0 + reservedMs)).rejects.toBeInstanceOf(RoomNotJoinableError);
    expect((await rooms.read(room.roomId))?.doc.members.carol).toBeUndefined();
  });

  it('holds the build check for the invited: another build is PROTOCOL_MISMATCH, the same build is let in', async () => {
    const { rooms, room } = await invitedSession();
    await expect(join(rooms, room.roomId, 'bob', t0 + 1_000, 'bbbbbbbbbbbbbbbb')).rejects.toBeInstanceOf(
      ProtocolMismatchError,
    );
    expect((await rooms.read(room.roomId))?.doc.members.bob?.k).toBeUndefined();
    await expect(join(rooms, room.roomId, 'bob', t0 + 1_000, build)).resolves.toMatchObject({
      reservation: { key: expect.any(String) },
    });
  });
});
