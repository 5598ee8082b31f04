import type { Context } from 'aws-lambda';
import { AuthTokenInvalidError } from '../../../../core/errors';
import type { ServerFrame } from '../../../../core/live/messages';
import type { SessionRead } from '../../../../core/rooms/room-store';
import { socketHandler, type SocketDependencies, type SocketEvent } from '../../../../lambdas/live/socket';
import { aRoom } from '../../../helpers/factories';
import { InMemoryLiveSubscriptions } from '../../../helpers/fakes/live-subscriptions';

/**
 * The socket handler on fakes: what each route answers, which frames it sends, and the presence
 * calls it makes on the room store. Over real sockets and DynamoDB: test/integration/live.
 */
const now = new Date('2030-01-01T00:00:00Z');
const roomId = 'room-1';
let live: InMemoryLiveSubscriptions;
let sent: { connectionId: string; frame: ServerFrame }[];
let presence: string[];
let failReads: boolean;
/** Writes that land while a subscribe runs: each read after the first sees this many more. */
let writesBetweenReads: number;
let reads: number;

function sessionWith(accounts: string[]): SessionRead {
  // alice hosts the session and her last socket closed a moment ago: a subscribe of hers is both signs.
  const host = { epoch: 1, account: 'alice', seenAt: now.getTime() - 1_000 };
  const changeNumber = 7 + (reads++ > 0 ? writesBetweenReads : 0);
  const room = aRoom({ roomId, state: 'ready', changeNumber, hosting: 'peer', host } as never);
  const members = Object.fromEntries(
    accounts.map((a) => [a, { s: 2, t: now.getTime() - 1_000, ...(a === 'alice' ? { d: now.getTime() - 500 } : {}) }]),
  );
  return { room, doc: { members, gone: {} } } as SessionRead;
}

const deps = (): SocketDependencies => ({
  live,
  sender: {
    send: async (connectionId, frame) => {
      sent.push({ connectionId, frame });
      return 'sent';
    },
  },
  rooms: {
    read: async (id) => {
      if (failReads) throw new Error('the table is down');
      return id === roomId ? sessionWith(['alice']) : undefined;
    },
    noteSocketAlive: async (id, account, _now, heard) =>
      void presence.push(`alive ${id} ${account} ${heard?.host ? 'host' : '-'} ${heard?.returning ? 'back' : '-'}`),
    noteSocketLost: async (id, account) => void presence.push(`lost ${id} ${account}`),
  },
  verifyToken: async (token) => {
    const [account, scope] = token.split(':');
    if (!account || account === 'bad') throw new AuthTokenInvalidError('bad token');
    return { account, scopes: scope ? [scope] : [] };
  },
  now: () => now,
});

const handler = socketHandler(deps);
const context = { getRemainingTimeInMillis: () => 30_000 } as Context;
const event = (connectionId: string, routeKey: string, extra: Partial<SocketEvent> = {}): SocketEvent => ({
  requestContext: { routeKey, connectionId },
  ...extra,
});
const connect = (connectionId: string, token?: string) =>
  handler(event(connectionId, '$connect', { queryStringParameters: token === undefined ? {} : { token } }), context);
const frame = (connectionId: string, body: unknown, routeKey = '$default') =>
  handler(event(connectionId, routeKey, { body: typeof body === 'string' ? body : JSON.stringify(body) }), context);
const framesTo = (connectionId: string) => sent.filter((s) => s.connectionId === connectionId).map((s) => s.frame);

beforeEach(() => {
  live = new InMemoryLiveSubscriptions(() => now);
  sent = [];
  presence = [];
  failReads = false;
  writesBetweenReads = 0;
  reads = 0;
});

describe('$connect', () => {
  it('refuses a missing or bad token with 401 and keeps nothing; accepts a good one', async () => {
    expect(await connect('c0')).toEqual({ statusCode: 401 });
    expect(await connect('c1', 'bad')).toEqual({ statusCode: 401 });
    expect(await live.connection('c1')).toBeUndefined();
    expect(await connect('c2', 'alice')).toEqual({ statusCode: 200 });
    expect(await live.connection('c2')).toMatchObject({ account: 'alice', admin: false });
    expect(await connect('c3', 'ops:admin')).toEqual({ statusCode: 200 });
    expect(await live.connection('c3')).toMatchObject({ account: 'ops', admin: true });
  });
});

describe('frames', () => {
  it('answers every frame that does not parse with a BAD_FRAME error frame, and the socket goes on', async () => {
    await connect('c1', 'alice');
    for (const body of [
      'not json',
      '{"action":"subscribe"}',
      { action: 'dance' },
      { action: 'ping', extra: 1 },
      'null',
    ]) {
      expect(await frame('c1', body)).toEqual({ statusCode: 200 });
    }
    const frames = framesTo('c1');
    expect(frames).toHaveLength(5);
    for (const f of frames) expect(f).toMatchObject({ type: 'error', code: 'BAD_FRAME', message: expect.any(String) });
    await frame('c1', { action: 'ping' }, 'ping');
    expect(framesTo('c1').at(-1)).toEqual({ type: 'pong' });
  });

  it('lets a live member subscribe (subscribed, then one tap when behind) and notes its socket alive', async () => {
    await connect('c1', 'alice');
    await frame('c1', { action: 'subscribe', roomId, since: 5 }, 'subscribe');
    expect(framesTo('c1')).toEqual([
      { type: 'subscribed', roomId, changeNumber: 7 },
      { type: 'tap', roomId, changeNumber: 7, changes: ['members', 'properties', 'host', 'state', 'servers'] },
    ]);
    expect(await live.subscribersOf(roomId)).toEqual([
      { connectionId: 'c1', roomId, account: 'alice', admin: false, since: 7, minTapIntervalMs: 0 },
    ]);
    expect(presence).toEqual([`alive ${roomId} alice host back`]);

    // A ping cannot know who hosts now, nor whether another socket's close was recorded since: both.
    await frame('c1', { action: 'ping' }, 'ping');
    expect(presence).toEqual([`alive ${roomId} alice host back`, `alive ${roomId} alice host back`]);
  });

  it('moves the subscription past a change that landed while it was made, so the fanout does not tap it again, late', async () => {
    await connect('c1', 'alice');
    writesBetweenReads = 2;
    await frame('c1', { action: 'subscribe', roomId, since: 7 }, 'subscribe');
    expect(framesTo('c1')[0]).toEqual({ type: 'subscribed', roomId, changeNumber: 9 });
    expect((await live.subscribersOf(roomId)).map((sub) => sub.since)).toEqual([9]);
  });

  it('refuses an outsider FORBIDDEN (also for a room that does not exist); an admin subscribes without presence', async () => {
    await connect('c1', 'mallory');
    await frame('c1', { action: 'subscribe', roomId }, 'subscribe');
    await frame('c1', { action: 'subscribe', roomId: 'no-such-room' }, 'subscribe');
    expect(framesTo('c1')).toEqual([
      expect.objectContaining({ type: 'error', code: 'FORBIDDEN', roomId }),
      expect.objectContaining({ type: 'error', code: 'FORBIDDEN', roomId: 'no-such-room' }),
    ]);
    expect(await live.subscribersOf(roomId)).toEqual([]);

    await connect('c2', 'ops:admin');
    await frame('c2', { action: 'subscribe', roomId, since: 7 }, 'subscribe');
    await frame('c2', { action: 'subscribe', roomId: 'no-such-room' }, 'subscribe');
    expect(framesTo('c2')).toEqual([
      { type: 'subscribed', roomId, changeNumber: 7 },
      expect.objectContaining({ type: 'error', code: 'NOT_FOUND', roomId: 'no-such-room' }),
    ]);
    expect(presence).toEqual([]);
  });

  it('tells a failure of the platform as an UNAVAILABLE error frame, never throwing at the gateway', async () => {
    await connect('c1', 'alice');
    failReads = true;
    expect(await frame('c1', { action: 'subscribe', roomId }, 'subscribe')).toEqual({ statusCode: 500 });
    expect(framesTo('c1')).toEqual([expect.objectContaining({ type: 'error', code: 'UNAVAILABLE' })]);
  });
});

describe('$disconnect and unsubscribe', () => {
  it("notes the member's socket lost only when it was the account's last one to the room", async () => {
    await connect('c1', 'alice');
    await connect('c2', 'alice');
    await frame('c1', { action: 'subscribe', roomId }, 'subscribe');
    await frame('c2', { action: 'subscribe', roomId }, 'subscribe');
    presence = [];

    await handler(event('c1', '$disconnect'), context);
    expect(presence).toEqual([]);
    expect((await live.subscribersOf(roomId)).map((s) => s.connectionId)).toEqual(['c2']);

    await frame('c2', { action: 'unsubscribe', roomId }, 'unsubscribe');
    expect(framesTo('c2').at(-1)).toEqual({ type: 'unsubscribed', roomId });
    expect(presence).toEqual([`lost ${roomId} alice`]);
    expect(await live.subscribersOf(roomId)).toEqual([]);

    await handler(event('c2', '$disconnect'), context);
    expect(presence).toEqual([`lost ${roomId} alice`]);
    expect(await live.connection('c2')).toBeUndefined();
  });
});
