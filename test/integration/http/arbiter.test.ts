import { shiftedClock } from '../../../core/infra/clock';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { configurePlatform } from '../../../lambdas/dependencies';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * The arbiter's powers of docs/api.md ("Live sessions") over real HTTP on DynamoDB Local:
 * saved state, removing a member, unreachable reports, each fenced by the host epoch; and a
 * member's socket as its presence (`disconnectedMs`), through the room store the socket side
 * calls. An election is made here by the write the election makes (host moved to another
 * member, epoch + 1), so these tests hold whatever decides who wins.
 */
let api: TestApi;
let store: RoomStore;
let offsetMs = 0;
const tokens = new Map<string, string>();
const now = () => new Date(Date.now() + offsetMs);

async function token(account: string): Promise<string> {
  const known = tokens.get(account) ?? (await api.platform.token(account));
  tokens.set(account, known);
  return known;
}

const epochHeader = (epoch: number | string) => ({ 'x-host-epoch': String(epoch) });
const as = async (account: string) => {
  const t = await token(account);
  return {
    get: (roomId: string) => api.call('GET', `/v1/rooms/${roomId}`, { token: t }),
    join: (roomId: string) => api.call('POST', `/v1/rooms/${roomId}/join`, { token: t, body: {} }),
    active: (roomId: string) =>
      api.call('PATCH', `/v1/rooms/${roomId}/members/me`, { token: t, body: { state: 'active' } }),
    save: (roomId: string, state: unknown, epoch: number | string) =>
      api.call('PUT', `/v1/rooms/${roomId}/state`, { token: t, body: { state }, headers: epochHeader(epoch) }),
    saveWithout: (roomId: string, state: unknown) =>
      api.call('PUT', `/v1/rooms/${roomId}/state`, { token: t, body: { state } }),
    read: (roomId: string) => api.call('GET', `/v1/rooms/${roomId}/state`, { token: t }),
    remove: (roomId: string, account: string, epoch: number) =>
      api.call('DELETE', `/v1/rooms/${roomId}/members/${encodeURIComponent(account)}`, {
        token: t,
        headers: epochHeader(epoch),
      }),
    report: (roomId: string, epoch: number) =>
      api.call('POST', `/v1/rooms/${roomId}/host/unreachable`, { token: t, body: { epoch } }),
  };
};

/** A peer-hosted session of alice (host, epoch 1) with these other members, all active. */
async function session(template: string, others: readonly string[]): Promise<string> {
  const created = await api.call('POST', '/v1/rooms', { token: await token('alice'), body: { template } });
  expect(created.status).toBe(201);
  const roomId: string = created.body.room.roomId;
  for (const account of ['alice', ...others]) {
    const member = await as(account);
    if (account !== 'alice') expect((await member.join(roomId)).status).toBe(200);
    expect((await member.active(roomId)).status).toBe(200);
  }
  return roomId;
}

/** What an election that `account` won writes: the host moves on to it, at the next epoch. */
async function elect(roomId: string, account: string): Promise<number> {
  const read = await store.read(roomId);
  const epoch = (read?.room.host?.epoch ?? 0) + 1;
  const result = await store.writeSession(roomId, {
    change: { set: [[['host'], { e: epoch, a: account, s: now().getTime() }]] },
    now: now(),
  });
  expect(result.applied).toBe(true);
  return epoch;
}

const memberStates = async (roomId: string) =>
  Object.fromEntries(
    ((await (await as('alice')).get(roomId)).body.room.members as { account: string; state: string }[]).map((m) => [
      m.account,
      m.state,
    ]),
  );

beforeAll(async () => {
  api = await startTestApi({ CREATE_RATE_LIMIT_PER_MINUTE: '1000', JOIN_RATE_LIMIT_PER_MINUTE: '1000' });
  configurePlatform({ clock: shiftedClock(() => offsetMs) });
  store = dynamoRoomStore(api.platform.db, api.platform.tableName);
  const admin = await api.platform.token('ops', ['admin']);
  const timeouts = { reservedMs: 60_000, inactiveMs: 60_000, sessionEmptyMs: 60_000, disconnectedMs: 5_000 };
  const put = await api.call('PUT', '/v1/admin/templates/arb', {
    token: admin,
    // An arbiter only where the template asks for one: it names its rules.
    body: { constants: { maxMembers: 8, visibility: 'open', timeouts, migrateHost: true } },
  });
  expect(put.status).toBe(200);
}, 30_000);
afterAll(async () => {
  configurePlatform({ clock: undefined });
  await api.close();
});
beforeEach(() => {
  offsetMs = 0;
});

describe('saved state', () => {
  it('the arbiter saves with its epoch; members read it; a save with a stale epoch is refused and changes nothing', async () => {
    const roomId = await session('arb', ['bob']);
    const alice = await as('alice');
    const bob = await as('bob');
    expect((await bob.read(roomId)).status).toBe(404);

    const saved = await alice.save(roomId, { round: 3, scores: [1, 2] }, 1);
    expect(saved.status).toBe(200);
    expect(saved.body).toEqual({ epoch: 1, savedAt: expect.any(String) });
    expect(await bob.read(roomId)).toMatchObject({
      status: 200,
      body: { epoch: 1, savedAt: saved.body.savedAt, state: { round: 3, scores: [1, 2] } },
    });

    // bob is elected: alice, partitioned, keeps saving with epoch 1 and is refused every time.
    const epoch = await elect(roomId, 'bob');
    for (const attempt of [1, 2, 3]) {
      const stale = await alice.save(roomId, { round: 3 + attempt }, 1);
      expect([stale.status, stale.body.error.code, stale.body.error.details.epoch]).toEqual([409, 'STALE_EPOCH', 2]);
    }
    // alice naming the new epoch is not its host either; bob without the epoch is a 400.
    expect((await alice.save(roomId, {}, epoch)).body.error.code).toBe('STALE_EPOCH');
    expect((await bob.saveWithout(roomId, {})).status).toBe(400);
    expect((await bob.read(roomId)).body.state).toEqual({ round: 3, scores: [1, 2] });

    // The new arbiter reads what the last one saved and saves in its own epoch.
    expect((await bob.save(roomId, { round: 4 }, epoch)).body.epoch).toBe(2);
    expect((await alice.read(roomId)).body).toMatchObject({ epoch: 2, state: { round: 4 } });
  });

  it('refuses a state over 16 KiB of JSON, and outsiders cannot read it', async () => {
    const roomId = await session('arb', []);
    const alice = await as('alice');
    const big = await alice.save(roomId, 'x'.repeat(16 * 1024), 1);
    expect([big.status, big.body.error.code]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
    expect((await alice.save(roomId, 'x'.repeat(16 * 1024 - 2), 1)).status).toBe(200);
    expect((await (await as('mallory')).read(roomId)).status).toBe(403);
  });
});

describe('the arbiter removes a member', () => {
  it('removes a member it cannot reach; a removal by a stale host is refused and removes nobody', async () => {
    const roomId = await session('arb', ['bob', 'carol', 'dave']);
    const alice = await as('alice');

    const epoch = await elect(roomId, 'bob');
    const stale = await alice.remove(roomId, 'carol', 1);
    expect([stale.status, stale.body.error.code, stale.body.error.details.epoch]).toEqual([409, 'STALE_EPOCH', epoch]);
    // Not the host, whatever epoch it names.
    expect((await (await as('dave')).remove(roomId, 'carol', epoch)).body.error.code).toBe('STALE_EPOCH');
    expect(Object.keys(await memberStates(roomId)).sort()).toEqual(['alice', 'bob', 'carol', 'dave']);

    const removed = await (await as('bob')).remove(roomId, 'carol', epoch);
    expect(removed.status).toBe(200);
    expect(removed.body.room.members.map((m: { account: string }) => m.account)).toEqual(['alice', 'bob', 'dave']);
    expect(removed.body.room.players).toBe(3);
    // Gone: it reads no state and cannot be removed twice.
    expect((await (await as('carol')).read(roomId)).status).toBe(403);
    expect((await (await as('bob')).remove(roomId, 'carol', epoch)).status).toBe(404);
  });
});

describe('unreachable reports', () => {
  it('records an active member’s report of this epoch, never elects, and any host write voids the reports', async () => {
    const roomId = await session('arb', ['bob', 'carol']);
    const bob = await as('bob');
    const reported = await bob.report(roomId, 1);
    expect(reported.status).toBe(200);
    const host = (await store.read(roomId))?.room.host;
    expect(host).toMatchObject({ epoch: 1, account: 'alice', reports: { bob: expect.any(Number) } });
    expect((await (await as('carol')).report(roomId, 1)).status).toBe(200);
    expect(Object.keys((await store.read(roomId))?.room.host?.reports ?? {}).sort()).toEqual(['bob', 'carol']);

    // The arbiter itself, a stale epoch, an outsider: refused.
    expect((await (await as('alice')).report(roomId, 1)).status).toBe(403);
    expect((await bob.report(roomId, 7)).body.error.code).toBe('STALE_EPOCH');
    expect((await (await as('mallory')).report(roomId, 1)).status).toBe(403);

    // Still alice's epoch; her next write is heard and clears the reports.
    expect((await (await as('alice')).save(roomId, { ok: true }, 1)).status).toBe(200);
    const after = (await store.read(roomId))?.room.host;
    expect(after).toMatchObject({ epoch: 1, account: 'alice' });
    expect(after?.reports).toBeUndefined();
  });
});

describe('sockets as presence (disconnectedMs)', () => {
  it('an active member whose last socket closed is inactive disconnectedMs later, and active again once heard', async () => {
    const roomId = await session('arb', ['bob']);
    await store.noteSocketLost(roomId, 'bob', now());
    expect((await store.read(roomId))?.doc.members.bob?.d).toEqual(expect.any(Number));
    offsetMs = 4_000;
    expect(await memberStates(roomId)).toEqual({ alice: 'active', bob: 'active' });
    offsetMs = 5_500;
    expect(await memberStates(roomId)).toEqual({ alice: 'active', bob: 'inactive' });

    await store.noteSocketAlive(roomId, 'bob', now());
    expect((await store.read(roomId))?.doc.members.bob?.d).toBeUndefined();
    expect(await memberStates(roomId)).toEqual({ alice: 'active', bob: 'active' });

    // Seen inactive, bob says it is active itself: that ends the disconnect too.
    await store.noteSocketLost(roomId, 'bob', now());
    offsetMs = 11_000;
    expect(await memberStates(roomId)).toEqual({ alice: 'active', bob: 'inactive' });
    expect((await (await as('bob')).active(roomId)).status).toBe(200);
    const bob = (await store.read(roomId))?.doc.members.bob;
    expect(bob?.s).toBe(2);
    expect(bob?.d).toBeUndefined();
    offsetMs = 30_000;
    expect(await memberStates(roomId)).toEqual({ alice: 'active', bob: 'active' });
  });

  it('a disconnected member is removed inactiveMs after it went inactive; a template without disconnectedMs records nothing', async () => {
    const roomId = await session('arb', ['bob']);
    await store.noteSocketLost(roomId, 'bob', now());
    offsetMs = 5_000 + 60_000 + 1;
    // Any write removes the expired member (lazy expiry); alice stays: she never disconnected.
    expect(
      (await (await as('alice')).active(roomId)).body.room.members.map((m: { account: string }) => m.account),
    ).toEqual(['alice']);

    const admin = await api.platform.token('ops', ['admin']);
    await api.call('PUT', '/v1/admin/templates/plain', {
      token: admin,
      body: { constants: { maxMembers: 4, visibility: 'open', timeouts: { reservedMs: 60_000 } } },
    });
    offsetMs = 0;
    const plain = await session('plain', []);
    await store.noteSocketLost(plain, 'alice', now());
    expect((await store.read(plain))?.doc.members.alice?.d).toBeUndefined();
  });

  it('refuses disconnectedMs on a dedicated template', async () => {
    const admin = await api.platform.token('ops', ['admin']);
    const refused = await api.call('PUT', '/v1/admin/templates/dedicated-presence', {
      token: admin,
      body: {
        gameId: 'arena',
        version: '1',
        constants: { maxMembers: 4, visibility: 'open', timeouts: { disconnectedMs: 5_000 } },
      },
    });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('constants.timeouts.disconnectedMs');
  });
});
