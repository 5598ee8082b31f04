import { connectionBounds } from '../../../core/live/bounds';
import { configurePlatform, platform } from '../../../lambdas/dependencies';
import { platformSocketDependencies, socketHandler } from '../../../lambdas/live/socket';
import { routes } from '../../../lambdas/http/routes';
import { startApiGateway, type LocalApiGateway } from '../../../local/api-gateway';
import { httpHandlers } from '../../../local/http-handlers';
import { createLiveGateway, livePath, type LocalLiveGateway } from '../../../local/live-gateway';
import { jsonClient } from '../../helpers/http';
import { openLive, refusedStatus, type LiveClient } from '../../helpers/live-client';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The live-session socket over real WebSockets, on the local gateway in front of the same
 * handler as API Gateway's, on DynamoDB Local: who may connect and subscribe, what a bad frame
 * gets, the bounds, idle sockets, catch-up, and 1,000 sockets on one session.
 */
let test: TestPlatform;
let http: LocalApiGateway;
let live: LocalLiveGateway;
let call: ReturnType<typeof jsonClient>;
let liveUrl: string;
const open: LiveClient[] = [];

async function connect(account: string, scopes: string[] = []): Promise<LiveClient> {
  const client = await openLive(liveUrl, await test.token(account, scopes));
  open.push(client);
  return client;
}

/** A peer-hosted session created by `account` (its first member). */
async function session(account: string): Promise<{ roomId: string; changeNumber: number }> {
  const created = await call('POST', '/v1/rooms', { token: await test.token(account), body: { template: 'peers' } });
  if (created.status !== 201) throw new Error(`create: ${JSON.stringify(created.body)}`);
  return created.body.room;
}

beforeAll(async () => {
  test = await startTestPlatform({ CREATE_RATE_LIMIT_PER_MINUTE: '1000', JOIN_RATE_LIMIT_PER_MINUTE: '1000' });
  live = createLiveGateway({ handler: socketHandler() });
  configurePlatform({ connectionSender: live.sender });
  http = await startApiGateway({ routes, handlers: httpHandlers, port: 0, upgrade: live.upgrade });
  call = jsonClient(http.url);
  liveUrl = `${http.url.replace(/^http/, 'ws')}${livePath}`;
  const admin = await test.token('ops', ['admin']);
  const template = await call('PUT', '/v1/admin/templates/peers', {
    token: admin,
    body: { constants: { maxMembers: 8, visibility: 'private' } },
  });
  expect(template.status).toBe(200);
}, 30_000);
afterEach(async () => {
  await Promise.all(open.splice(0).map((client) => client.close()));
});
afterAll(async () => {
  await live.close();
  await http.close();
  configurePlatform({ connectionSender: undefined });
  await test.close();
});

it('refuses the upgrade with HTTP 401 for a missing, bad or foreign token, before any socket opens', async () => {
  expect(await refusedStatus(liveUrl)).toBe(401);
  expect(await refusedStatus(liveUrl, 'not-a-token')).toBe(401);
  expect(await refusedStatus(liveUrl, await test.serverToken('room-1'))).toBe(401);
  expect(await refusedStatus(`${http.url.replace(/^http/, 'ws')}/v1/elsewhere`, await test.token('alice'))).toBe(404);
  expect(live.open).toBe(0);
});

it('lets live members and admins subscribe; an outsider gets FORBIDDEN; a bad frame an error frame', async () => {
  const { roomId, changeNumber } = await session('alice');
  const alice = await connect('alice');
  const mallory = await connect('mallory');
  const ops = await connect('ops', ['admin']);

  alice.send({ action: 'subscribe', roomId });
  expect(await alice.next()).toEqual({ type: 'subscribed', roomId, changeNumber });
  mallory.send({ action: 'subscribe', roomId });
  expect(await mallory.next()).toMatchObject({ type: 'error', code: 'FORBIDDEN', roomId });
  ops.send({ action: 'subscribe', roomId });
  expect(await ops.next()).toEqual({ type: 'subscribed', roomId, changeNumber });
  expect((await platform().liveSubscriptions.subscribersOf(roomId)).map((s) => s.account).sort()).toEqual([
    'alice',
    'ops',
  ]);

  for (const bad of ['{', '{"action":"subscribe","roomId":""}', '{"action":"fly"}', '[]']) {
    mallory.send(bad);
    expect(await mallory.next()).toMatchObject({ type: 'error', code: 'BAD_FRAME' });
  }
  mallory.send({ action: 'ping' });
  expect(await mallory.next()).toEqual({ type: 'pong' });
});

it('catches a subscriber up at once when `since` is behind the room, and not when it is current', async () => {
  const { roomId } = await session('alice');
  const token = await test.token('alice');
  const patched = await call('PATCH', `/v1/rooms/${roomId}`, { token, body: { properties: { custom: { round: 2 } } } });
  expect(patched.status).toBe(200);
  const { changeNumber } = patched.body.room;
  const alice = await connect('alice');

  alice.send({ action: 'subscribe', roomId, since: changeNumber - 1 });
  expect(await alice.next()).toEqual({ type: 'subscribed', roomId, changeNumber });
  expect(await alice.next()).toMatchObject({ type: 'tap', roomId, changeNumber, changes: expect.any(Array) });

  alice.send({ action: 'subscribe', roomId, since: changeNumber });
  expect(await alice.next()).toEqual({ type: 'subscribed', roomId, changeNumber });
  alice.send({ action: 'ping' });
  expect(await alice.next()).toEqual({ type: 'pong' });
});

it('bounds sockets per account (429 before the upgrade) and subscriptions per socket', async () => {
  const sockets: LiveClient[] = [];
  for (let i = 0; i < connectionBounds.perAccount; i++) sockets.push(await connect('bounded', ['admin']));
  expect(await refusedStatus(liveUrl, await test.token('bounded', ['admin']))).toBe(429);

  const [first] = sockets;
  const rooms = await Promise.all(
    Array.from({ length: connectionBounds.subscriptionsPerConnection + 1 }, () => session('alice')),
  );
  for (const { roomId } of rooms) first!.send({ action: 'subscribe', roomId });
  for (const { roomId } of rooms.slice(0, -1))
    expect(await first!.next()).toMatchObject({ type: 'subscribed', roomId });
  expect(await first!.next()).toMatchObject({
    type: 'error',
    code: 'TOO_MANY_SUBSCRIPTIONS',
    roomId: rooms.at(-1)!.roomId,
  });

  // Closing a socket frees its place (its $disconnect) and ends its subscriptions.
  await first!.close();
  let reopened: LiveClient | undefined;
  for (let attempt = 0; attempt < 50 && !reopened; attempt++) {
    reopened = await connect('bounded', ['admin']).catch(() => undefined);
    if (!reopened) await pause(50);
  }
  expect(reopened).toBeDefined();
  expect(await platform().liveSubscriptions.subscribersOf(rooms[0]!.roomId)).toEqual([]);
});

it('ends a socket idle past the idle timeout (code 1001) and forgets it; frames keep one open', async () => {
  const idleLive = createLiveGateway({
    handler: socketHandler(() => ({ ...platformSocketDependencies(), sender: idleLive.sender })),
    idleMs: 400,
  });
  const idleHttp = await startApiGateway({ routes: [], handlers: {}, port: 0, upgrade: idleLive.upgrade });
  try {
    const { roomId } = await session('alice');
    const url = `${idleHttp.url.replace(/^http/, 'ws')}${livePath}`;
    const busy = await openLive(url, await test.token('alice'));
    const quiet = await openLive(url, await test.token('alice'));
    quiet.send({ action: 'subscribe', roomId });
    expect(await quiet.next()).toMatchObject({ type: 'subscribed' });
    busy.send({ action: 'subscribe', roomId });
    expect(await busy.next()).toMatchObject({ type: 'subscribed' });

    const pinging = setInterval(() => busy.send({ action: 'ping' }), 100);
    try {
      expect(await quiet.closed).toBe(1001);
      expect(busy.ws.readyState).toBe(busy.ws.OPEN);
    } finally {
      clearInterval(pinging);
    }
    expect(await busy.closed).toBe(1001);
    for (let attempt = 0; attempt < 100 && (await platform().liveSubscriptions.subscribersOf(roomId)).length; attempt++)
      await pause(20);
    expect(await platform().liveSubscriptions.subscribersOf(roomId)).toEqual([]);
  } finally {
    await idleLive.close();
    await idleHttp.close();
  }
});

it('holds 1,000 sockets subscribed to one session, each reached through the sender', async () => {
  const { roomId, changeNumber } = await session('alice');
  const accounts = Array.from({ length: 250 }, (_, i) => `watcher-${i}`);
  const tokens = await Promise.all(accounts.map((account) => test.token(account, ['admin'])));
  const clients: LiveClient[] = [];
  // In waves: 1,000 upgrades at once would only queue behind DynamoDB Local's accept backlog.
  for (let wave = 0; wave < 4; wave++) {
    const opened = await Promise.all(tokens.map((token) => openLive(liveUrl, token)));
    clients.push(...opened);
    open.push(...opened);
  }
  for (const client of clients) client.send({ action: 'subscribe', roomId });
  for (const client of clients) expect(await client.next(20_000)).toEqual({ type: 'subscribed', roomId, changeNumber });

  const subscribers = await platform().liveSubscriptions.subscribersOf(roomId);
  expect(subscribers).toHaveLength(1_000);
  const results = await Promise.all(
    subscribers.map((s) => platform().connectionSender.send(s.connectionId, { type: 'pong' })),
  );
  expect(results.every((r) => r === 'sent')).toBe(true);
  for (const client of clients) expect(await client.next()).toEqual({ type: 'pong' });
}, 120_000);

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
