import type { ServerFrame } from '../../core/live/messages';
import { jsonClient } from '../helpers/http';
import { openLive, type LiveClient } from '../helpers/live-client';
import { startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Taps on the local cloud, end to end: a write through the HTTP API, DynamoDB Local's stream
 * read by the local cloud, the same handler as deployed (lambdas/stream/room-taps.ts), frames
 * on real sockets.
 */
let test: TestCloud;
let call: ReturnType<typeof jsonClient>;

const tokenFor = async (account: string, scopes?: string[]) =>
  (await call('POST', '/v1/dev/tokens', { body: { account, ...(scopes ? { scopes } : {}) } })).body
    .access_token as string;

beforeAll(async () => {
  test = await startTestCloud([]);
  call = jsonClient(test.cloud.apiUrl);
  const admin = await tokenFor('ops', ['admin']);
  // The host (the creator) never pings here: it must not be judged silent while a test runs.
  const lobby = { constants: { maxMembers: 4, visibility: 'open', hostTimeoutMs: 600_000 } };
  expect((await call('PUT', '/v1/admin/templates/tap-lobby', { token: admin, body: lobby })).status).toBe(200);
  // A session that ends with its host: the host never pings, so it is lost a second after its last write.
  const fragile = { constants: { maxMembers: 4, visibility: 'open', hostTimeoutMs: 1_000, migrateHost: false } };
  expect((await call('PUT', '/v1/admin/templates/tap-fragile', { token: admin, body: fragile })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

const sockets: LiveClient[] = [];
afterEach(async () => {
  await Promise.all(sockets.splice(0).map((s) => s.close()));
});

/** A peer-hosted session of these accounts, every member active; answers its id and the members' tokens. */
async function session(accounts: string[], template = 'tap-lobby'): Promise<{ roomId: string; tokens: string[] }> {
  const tokens = await Promise.all(accounts.map((a) => tokenFor(a)));
  const created = await call('POST', '/v1/rooms', { token: tokens[0], body: { template } });
  expect(created.status).toBe(201);
  const roomId = created.body.room.roomId as string;
  for (const token of tokens.slice(1)) {
    expect((await call('POST', `/v1/rooms/${roomId}/join`, { token, body: {} })).status).toBe(200);
  }
  for (const token of tokens) {
    const active = await call('PATCH', `/v1/rooms/${roomId}/members/me`, { token, body: { state: 'active' } });
    expect(active.status).toBe(200);
  }
  return { roomId, tokens };
}

async function subscribed(
  token: string,
  roomId: string,
  since?: number,
): Promise<{ live: LiveClient; first: ServerFrame[] }> {
  const live = await openLive(test.cloud.liveUrl, token);
  sockets.push(live);
  // UNAVAILABLE (a dependency slow to answer on a loaded machine) means: send the frame again (docs/live.md).
  for (let attempt = 1; ; attempt++) {
    live.send({ action: 'subscribe', roomId, ...(since === undefined ? {} : { since }) });
    const first = [await live.next(5_000)];
    if (first[0]?.type === 'error' && first[0].code === 'UNAVAILABLE' && attempt < 3) continue;
    expect(first[0]).toMatchObject({ type: 'subscribed', roomId });
    return { live, first };
  }
}

it('taps three members for every change, in order, each within 1 s of the write’s answer', async () => {
  const { roomId, tokens } = await session(['t3-alice', 't3-bob', 't3-carol']);
  const clients = await Promise.all(tokens.map(async (token) => (await subscribed(token, roomId)).live));

  const writes = [
    {
      token: tokens[0]!,
      path: `/v1/rooms/${roomId}`,
      body: { properties: { custom: { round: 1 } } },
      kind: 'properties',
    },
    {
      token: tokens[1]!,
      path: `/v1/rooms/${roomId}/members/me`,
      body: { properties: { custom: { hp: 9 } } },
      kind: 'members',
    },
    {
      token: tokens[2]!,
      path: `/v1/rooms/${roomId}`,
      body: { properties: { custom: { round: 2 } } },
      kind: 'properties',
    },
    { token: tokens[0]!, path: `/v1/rooms/${roomId}/members/me`, body: { state: 'inactive' }, kind: 'members' },
  ];
  for (const write of writes) {
    const answer = await call('PATCH', write.path, { token: write.token, body: write.body });
    expect(answer.status).toBe(200);
    const taps = await Promise.all(clients.map((client) => client.next(1_000)));
    const tap = { type: 'tap', roomId, changeNumber: answer.body.room.changeNumber, changes: [write.kind] };
    expect(taps).toEqual([tap, tap, tap]);
  }
}, 30_000);

it('catches up a client that subscribes again with an older change number, at once', async () => {
  const { roomId, tokens } = await session(['tr-alice', 'tr-bob']);
  const first = await subscribed(tokens[1]!, roomId);
  const seen = (first.first[0] as { changeNumber: number }).changeNumber;
  await first.live.close();

  const missed = await call('PATCH', `/v1/rooms/${roomId}`, {
    token: tokens[0],
    body: { properties: { custom: { round: 1 } } },
  });
  const again = await subscribed(tokens[1]!, roomId, seen);
  const current = missed.body.room.changeNumber as number;
  expect(again.first[0]).toMatchObject({ changeNumber: current });
  expect(await again.live.next(1_000)).toMatchObject({ type: 'tap', roomId, changeNumber: current });
  // And from there on, each change as it comes.
  const next = await call('PATCH', `/v1/rooms/${roomId}`, {
    token: tokens[0],
    body: { properties: { custom: { round: 2 } } },
  });
  expect(await again.live.next(1_000)).toEqual({
    type: 'tap',
    roomId,
    changeNumber: next.body.room.changeNumber,
    changes: ['properties'],
  });
}, 30_000);

it('ends the subscription of a member that left, and taps it no more', async () => {
  const { roomId, tokens } = await session(['tl-alice', 'tl-bob']);
  const [alice, bob] = await Promise.all(tokens.map(async (token) => (await subscribed(token, roomId)).live));

  expect((await call('DELETE', `/v1/rooms/${roomId}/members/me`, { token: tokens[1] })).status).toBe(204);
  const ended = await bob!.next(1_000);
  expect(ended).toMatchObject({ type: 'ended', roomId, reason: 'removed' });
  expect(await alice!.next(1_000)).toMatchObject({ type: 'tap', roomId, changes: ['members'] });

  const later = await call('PATCH', `/v1/rooms/${roomId}`, {
    token: tokens[0],
    body: { properties: { custom: { round: 1 } } },
  });
  expect(await alice!.next(1_000)).toMatchObject({ changeNumber: later.body.room.changeNumber });
  expect(bob!.pending).toEqual([]);
}, 30_000);

it('ends every subscription with host-lost when a session without migrateHost loses its host', async () => {
  const { roomId, tokens } = await session(['tf-host', 'tf-bob', 'tf-cy'], 'tap-fragile');
  const [bob, cy] = await Promise.all(tokens.slice(1).map(async (token) => (await subscribed(token, roomId)).live));
  // The host's last sign was its own PATCH; past hostTimeoutMs a member's claim ends the session.
  let claim;
  do {
    await new Promise((resolve) => setTimeout(resolve, 500));
    claim = await call('POST', `/v1/rooms/${roomId}/host`, { token: tokens[1], body: { epoch: 1 } });
  } while (claim.status === 409 && claim.body.error.code === 'HOST_ALIVE');
  expect(claim.status).toBe(404);
  for (const live of [bob!, cy!]) {
    expect(await live.next(2_000)).toMatchObject({ type: 'ended', roomId, reason: 'host-lost' });
  }
}, 30_000);

it('taps each of 1,000 sockets on one session', async () => {
  const { roomId, tokens } = await session(['tk-alice']);
  // Five sockets an account (the bound), admins: a session holds at most 100 members.
  const admins = await Promise.all(Array.from({ length: 200 }, (_, i) => tokenFor(`tk-admin-${i}`, ['admin'])));
  for (let batch = 0; batch < 1_000; batch += 50) {
    const opened = await Promise.all(
      Array.from({ length: 50 }, (_, i) => subscribed(admins[Math.floor((batch + i) / 5)]!, roomId)),
    );
    expect(opened).toHaveLength(50);
  }
  const write = await call('PATCH', `/v1/rooms/${roomId}`, {
    token: tokens[0],
    body: { properties: { custom: { round: 1 } } },
  });
  const taps = await Promise.all(sockets.map((s) => s.next(5_000)));
  const tap = { type: 'tap', roomId, changeNumber: write.body.room.changeNumber, changes: ['properties'] };
  expect(taps.filter((frame) => JSON.stringify(frame) === JSON.stringify(tap))).toHaveLength(1_000);
}, 120_000);
