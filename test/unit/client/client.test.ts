import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';
import {
  ApiError,
  ConnectionError,
  createRoomkeeperClient,
  dataOf,
  joinRoom,
  openLiveSocket,
  type LiveServerFrame,
} from '../../../client';

/** A stand-in API answering each request with the next scripted answer, recording what came. */
interface Script {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}
interface StandIn {
  readonly url: string;
  readonly requests: IncomingMessage[];
  close(): Promise<void>;
}

async function standIn(answers: Script[]): Promise<StandIn> {
  const requests: IncomingMessage[] = [];
  const server: Server = createServer((request, response) => {
    requests.push(request);
    request.resume();
    const answer = answers.shift() ?? { status: 500, body: { error: { code: 'INTERNAL', message: 'unscripted' } } };
    response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
    response.end(answer.body === undefined ? undefined : JSON.stringify(answer.body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const room = {
  roomId: 'r1',
  gameId: 'g',
  version: '1',
  region: 'local',
  state: 'ready',
  settings: {},
  maxPlayers: 2,
  players: 1,
  changeNumber: 1,
};
const joined = {
  room,
  reservation: { key: 'k', host: '127.0.0.1', ports: [38000], expiresAt: '2026-01-01T00:00:00Z' },
};
const unavailable = { error: { code: 'UNAVAILABLE', message: 'try again' } };

let api: StandIn | undefined;
afterEach(() => api?.close());

describe('joinRoom', () => {
  it('retries 503 and 429 after their Retry-After, with one Idempotency-Key on every attempt', async () => {
    api = await standIn([
      { status: 503, body: unavailable, headers: { 'retry-after': '0' } },
      { status: 429, body: { message: 'Too Many Requests' }, headers: { 'retry-after': '0' } },
      { status: 200, body: joined },
    ]);
    const delays: number[] = [];

    const result = await joinRoom(createRoomkeeperClient({ baseUrl: api.url, token: 't' }), 'r1', undefined, {
      onRetry: ({ delayMs }) => delays.push(delayMs),
    });

    expect(result).toMatchObject({ status: 200, room: { roomId: 'r1' }, reservation: { key: 'k' } });
    expect(delays).toEqual([0, 0]);
    const keys = api.requests.map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(3);
    expect(new Set(keys)).toEqual(new Set([result.idempotencyKey]));
    expect(result.idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
    expect(api.requests.map((r) => r.url)).toEqual(Array(3).fill('/v1/rooms/r1/join'));
  });

  it('gives up after maxAttempts with the last ApiError, Retry-After included', async () => {
    api = await standIn([
      { status: 503, body: unavailable, headers: { 'retry-after': '0' } },
      { status: 503, body: unavailable, headers: { 'retry-after': '0' } },
    ]);

    const failure = joinRoom(createRoomkeeperClient({ baseUrl: api.url }), 'r1', {}, { maxAttempts: 2 });

    await expect(failure).rejects.toMatchObject({ status: 503, code: 'UNAVAILABLE', retryAfterS: 0 });
    expect(api.requests).toHaveLength(2);
  });

  it('never retries an error that is not 429/503, and a new call gets a new key', async () => {
    const full = { error: { code: 'ROOM_FULL', message: 'no free slot' } };
    api = await standIn([
      { status: 409, body: full },
      { status: 409, body: full },
    ]);
    const client = createRoomkeeperClient({ baseUrl: api.url });

    await expect(joinRoom(client, 'r1')).rejects.toEqual(new ApiError(409, 'ROOM_FULL', 'no free slot'));
    await expect(joinRoom(client, 'r1')).rejects.toBeInstanceOf(ApiError);

    const [first, second] = api.requests.map((r) => r.headers['idempotency-key']);
    expect(first).not.toEqual(second);
  });

  it('stops waiting when its signal aborts', async () => {
    api = await standIn([{ status: 503, body: unavailable, headers: { 'retry-after': '30' } }]);
    const abort = new AbortController();

    const failure = joinRoom(
      createRoomkeeperClient({ baseUrl: api.url }),
      'r1',
      {},
      {
        signal: abort.signal,
        onRetry: ({ delayMs }) => {
          expect(delayMs).toBe(30_000);
          abort.abort(new Error('gave up'));
        },
      },
    );

    await expect(failure).rejects.toThrow('gave up');
    expect(api.requests).toHaveLength(1);
  });
});

describe('createRoomkeeperClient', () => {
  it('asks the token function before every request and sends it as a bearer token', async () => {
    api = await standIn([
      { status: 200, body: { room } },
      { status: 200, body: { room } },
    ]);
    let n = 0;
    const client = createRoomkeeperClient({ baseUrl: `${api.url}/`, token: async () => `token-${++n}` });

    for (let i = 0; i < 2; i++) dataOf(await client.GET('/v1/rooms/{roomId}', { params: { path: { roomId: 'r1' } } }));

    expect(api.requests.map((r) => r.headers.authorization)).toEqual(['Bearer token-1', 'Bearer token-2']);
  });

  it("turns API Gateway's own { message } into an ApiError with the status's code", async () => {
    api = await standIn([{ status: 401, body: { message: 'Unauthorized' } }]);
    const client = createRoomkeeperClient({ baseUrl: api.url });

    const failing = async () => dataOf(await client.GET('/v1/rooms/{roomId}', { params: { path: { roomId: 'r' } } }));

    await expect(failing()).rejects.toEqual(new ApiError(401, 'UNAUTHORIZED', 'Unauthorized'));
  });

  it('rejects with a ConnectionError when nothing answers', async () => {
    api = await standIn([]);
    const url = api.url;
    await api.close();
    api = undefined;

    const failure = joinRoom(createRoomkeeperClient({ baseUrl: url }), 'r1', {}, { maxAttempts: 1 });

    await expect(failure).rejects.toBeInstanceOf(ConnectionError);
  });
});

describe('openLiveSocket', () => {
  it('sends subscribe and ping frames and hands over the frames it gets', async () => {
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise((resolve) => server.once('listening', resolve));
    const received: unknown[] = [];
    let upgradeUrl = '';
    server.on('connection', (socket, request) => {
      upgradeUrl = request.url ?? '';
      socket.on('message', (data) => {
        const frame = JSON.parse(String(data)) as { action: string; roomId?: string };
        received.push(frame);
        if (frame.action === 'subscribe')
          socket.send(JSON.stringify({ type: 'subscribed', roomId: frame.roomId, changeNumber: 3 }));
        if (frame.action === 'ping') socket.send(JSON.stringify({ type: 'pong' }));
      });
    });
    const frames: LiveServerFrame[] = [];
    const pong = new Promise<void>((resolve) => {
      void openLiveSocket({
        baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        token: () => 'a b',
        onFrame: (frame) => {
          frames.push(frame);
          if (frame.type === 'pong') resolve();
        },
      }).then((live) => {
        live.subscribe('r1', { since: 2 });
        live.ping();
        void pong.then(() => live.close());
      });
    });

    await pong;
    server.close();

    expect(upgradeUrl).toBe('/v1/live?token=a+b');
    expect(received).toEqual([{ action: 'subscribe', roomId: 'r1', since: 2 }, { action: 'ping' }]);
    expect(frames).toEqual([{ type: 'subscribed', roomId: 'r1', changeNumber: 3 }, { type: 'pong' }]);
  });
});
