import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { InviteRateLimitedError } from '../../../core/abuse/errors';
import {
  InviteeBannedError,
  InviteeFullError,
  InviterNotArbiterError,
  InviterNotMemberError,
} from '../../../core/invites/errors';
import { inviteToRoom, type InviteDependencies } from '../../../core/invites/invite';
import { planInvite } from '../../../core/invites/invite-conditions';
import { inviteEntryWrite, maxLiveInvitesPerAccount } from '../../../core/invites/invite-store';
import { keys } from '../../../core/infra/keys';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { joinRoom } from '../../../core/rooms/join';
import { RoomFullError, RoomNotJoinableError } from '../../../core/rooms/join-errors';
import type { Room } from '../../../core/rooms/model';
import { platform as lambdaPlatform, type Platform } from '../../../lambdas/dependencies';
import { aRoom } from '../../helpers/factories';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Invites on DynamoDB Local: the room's reserved members and the invitees' invites items in
 * one transaction (all or none), the bounds and refusals, and `inviteOnly` admitting exactly
 * the invited under a race of outsiders.
 */
let test: TestPlatform;
let p: Platform;
const inviteLimit = 2;

beforeAll(async () => {
  test = await startTestPlatform({ INVITE_RATE_LIMIT_PER_MINUTE: String(inviteLimit) });
  p = lambdaPlatform();
});
afterAll(() => test.close());

const deps = (): InviteDependencies => ({
  rooms: p.rooms,
  invites: p.invites,
  abuse: p.abuse,
  now: p.now,
  sleep: (ms) => p.clock.sleep(ms),
});

/** A ready session of `members` (alice first), each holding a slot for a day. */
async function session(members: readonly string[], overrides: Partial<Room> = {}): Promise<Room> {
  const now = p.now();
  const room = aRoom({
    maxPlayers: 4,
    players: members.length,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    placement: { taskId: 't', host: '127.0.0.1', ports: [40001] },
    address: '127.0.0.1',
    lastHeartbeatAt: now.toISOString(),
    constants: {
      maxMembers: 4,
      visibility: 'open',
      timeouts: { reservedMs: 60_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
    },
    properties: { joinability: 'inviteOnly', custom: {} },
    ...overrides,
  });
  const createdAt = now.toISOString();
  const expiresAt = new Date(now.getTime() + 86_400_000).toISOString();
  await p.rooms.createWithMember(
    room,
    members.map((account) => ({ account, keyHash: `h-${account}`, scopes: [], createdAt, expiresAt })),
  );
  return room;
}

const unique = (name: string) => `${name}-${Math.random().toString(36).slice(2, 8)}`;
const invitesItem = async (account: string) =>
  (await test.db.send(new GetCommand({ TableName: test.tableName, Key: keys.accountInvites(account) }))).Item;

describe('POST invites on the table', () => {
  it('writes the reserved members and each invitee’s invites item in one transaction', async () => {
    const [alice, bob, carol] = [unique('alice'), unique('bob'), unique('carol')];
    const room = await session([alice]);
    const result = await inviteToRoom({ roomId: room.roomId, inviter: alice, accounts: [bob, carol] }, deps());
    expect(result.read.room.players).toBe(3);
    expect(result.read.doc.members[bob]).toMatchObject({ s: 0, i: alice, e: result.expiresAt });
    for (const account of [bob, carol]) {
      expect(await invitesItem(account)).toMatchObject({
        invites: { [room.roomId]: { by: alice, exp: result.expiresAt } },
        ttl: expect.any(Number),
      });
    }
  });

  it('writes nothing at all when one invitee’s invites item changed since it was read', async () => {
    const [alice, bob, carol] = [unique('alice'), unique('bob'), unique('carol')];
    const room = await session([alice]);
    const read = (await p.rooms.read(room.roomId))!;
    const now = p.now();
    const plan = planInvite(read, alice, [bob, carol], now)!;
    const entry = { by: alice, exp: plan.expiresAt };
    const books = await Promise.all([bob, carol].map((a) => p.invites.read(a)));
    const writes = books.map((book) => inviteEntryWrite(book, room.roomId, entry, now.getTime()));
    // Another invite reaches carol first: her item now exists, so this write's condition fails.
    await test.db.send(
      new PutCommand({
        TableName: test.tableName,
        Item: { ...keys.accountInvites(carol), invites: { other: { by: 'x', exp: now.getTime() + 60_000 } } },
      }),
    );
    expect(await p.rooms.transactWrite(room.roomId, plan.write, writes)).toEqual({ state: 'Refused', at: 1 });
    const after = (await p.rooms.read(room.roomId))!;
    expect([after.room.players, after.doc.members[bob], after.room.changeNumber]).toEqual([
      1,
      undefined,
      read.room.changeNumber,
    ]);
    expect(await invitesItem(bob)).toBeUndefined();
  });

  it('refuses a banned invitee, a non-member, a member who is not the arbiter, a full room, a full list', async () => {
    const [alice, bob, carol, mallory] = [unique('alice'), unique('bob'), unique('carol'), unique('mallory')];
    await p.abuse.ban({ account: mallory, reason: 'spam' }, 'ops', p.now());
    const room = await session([alice, bob], { hosting: 'peerHosted', host: { epoch: 1, account: alice, seenAt: 0 } });
    const as = (inviter: string, accounts: string[]) =>
      inviteToRoom({ roomId: room.roomId, inviter, accounts }, deps()).catch((e: unknown) => e);
    expect(await as(alice, [carol, mallory])).toBeInstanceOf(InviteeBannedError);
    expect(await as(unique('eve'), [carol])).toBeInstanceOf(InviterNotMemberError);
    expect(await as(bob, [carol])).toBeInstanceOf(InviterNotArbiterError);
    expect(await as(alice, [carol, unique('d'), unique('e')])).toBeInstanceOf(RoomFullError);
    const full = unique('full');
    const entries = Object.fromEntries(
      Array.from({ length: maxLiveInvitesPerAccount }, (_, i) => [`r${i}`, { by: 'x', exp: Date.now() + 60_000 }]),
    );
    await test.db.send(
      new PutCommand({ TableName: test.tableName, Item: { ...keys.accountInvites(full), invites: entries } }),
    );
    // Rate limited past the inviter's allowance, whatever else the invite would meet.
    expect(await as(alice, [full])).toBeInstanceOf(InviteRateLimitedError);
    expect(await invitesItem(carol)).toBeUndefined();
    const other = await session([unique('ann')]);
    const owner = Object.keys((await p.rooms.read(other.roomId))!.doc.members)[0]!;
    expect(
      await inviteToRoom({ roomId: other.roomId, inviter: owner, accounts: [full] }, deps()).catch((e: unknown) => e),
    ).toBeInstanceOf(InviteeFullError);
    expect((await p.rooms.read(room.roomId))!.room.players).toBe(2);
  });
});

describe('inviteOnly admits exactly the invited', () => {
  it('50 concurrent outsiders and the invited: only the invited gets in', async () => {
    const alice = unique('alice');
    const invited = [unique('bob'), unique('carol')];
    const room = await session([alice]);
    await inviteToRoom({ roomId: room.roomId, inviter: alice, accounts: invited }, deps());
    const outsiders = Array.from({ length: 50 }, (_, i) => unique(`outsider${i}`));
    const join = (account: string) =>
      joinRoom(
        { roomId: room.roomId, account, scopes: [] },
        {
          sessions: p.rooms,
          cache: new PlatformCache(),
          now: p.now,
          sleep: (ms) => p.clock.sleep(ms),
          answerBy: new Date(Date.now() + 20_000),
          heartbeatTimeoutS: 3_600,
        },
      ).then(
        (joined) => ({ account, key: joined.reservation.key }),
        (error: unknown) => ({ account, error }),
      );
    const results = await Promise.all([...outsiders, ...invited].map(join));
    const admitted = results.filter((r) => 'key' in r).map((r) => r.account);
    expect(admitted.sort()).toEqual([...invited].sort());
    expect(results.filter((r) => 'error' in r && r.error instanceof RoomNotJoinableError)).toHaveLength(50);
    const read = (await p.rooms.read(room.roomId))!;
    expect(Object.keys(read.doc.members).sort()).toEqual([alice, ...invited].sort());
    expect(read.room.players).toBe(3);
    for (const account of invited) expect(read.doc.members[account]?.k).toEqual(expect.any(String));
  });
});
