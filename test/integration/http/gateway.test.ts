import { createTokenSigner, generateSigningKeyPair } from '../../../core/auth/tokens';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { routes } from '../../../lambdas/http/routes';
import { startApiGateway, type LocalApiGateway } from '../../../local/api-gateway';
import { httpHandlers } from '../../../local/http-handlers';
import { aRoom } from '../../helpers/factories';
import { checkedFetch } from '../../helpers/http';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

let platform: TestPlatform;
let gateway: LocalApiGateway;

beforeAll(async () => {
  platform = await startTestPlatform();
  gateway = await startApiGateway({ routes, handlers: httpHandlers, port: 0 });
});

afterAll(async () => {
  await gateway.close();
  await platform.close();
});

async function call(method: string, path: string, init: { token?: string; body?: string } = {}) {
  const response = await checkedFetch(`${gateway.url}${path}`, {
    method,
    headers: { ...(init.token ? { authorization: `Bearer ${init.token}` } : {}), 'content-type': 'application/json' },
    body: init.body,
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    body: text ? (JSON.parse(text) as Record<string, any>) : undefined,
  };
}

describe('GET /v1/rooms/{roomId}', () => {
  it('refuses a request without a token with 401 UNAUTHORIZED', async () => {
    const response = await call('GET', '/v1/rooms/x');
    expect(response.status).toBe(401);
    expect(response.body?.error.code).toBe('UNAUTHORIZED');
  });

  it('refuses a token signed by another key with 401', async () => {
    const other = await startTestPlatformToken();
    const response = await call('GET', '/v1/rooms/x', { token: other });
    expect(response.status).toBe(401);
  });

  it('answers 404 NOT_FOUND for an unknown room', async () => {
    const response = await call('GET', '/v1/rooms/x', { token: await platform.token('alice') });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: { code: 'NOT_FOUND', message: "Room 'x' does not exist." } });
  });

  it('reads a stored room back through HTTP and DynamoDB', async () => {
    const room = aRoom({ players: 3 });
    await dynamoRoomStore(platform.db, platform.tableName).createWithMember(room);
    const response = await call('GET', `/v1/rooms/${room.roomId}`, { token: await platform.token('alice') });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      room: {
        roomId: room.roomId,
        gameId: room.gameId,
        version: room.version,
        region: room.region,
        state: room.state,
        settings: room.settings,
        maxPlayers: room.maxPlayers,
        players: 3,
        changeNumber: room.changeNumber,
        // The session document: the default template, and its (here empty) members.
        template: null,
        constants: {
          maxMembers: room.maxPlayers,
          visibility: 'open',
          timeouts: {
            reservedMs: room.reservationTimeoutS * 1000,
            readyMs: null,
            inactiveMs: null,
            sessionEmptyMs: null,
          },
          custom: {},
          // A room stored without the arbiter's rules reads the defaults.
          migrateHost: false,
          hostTimeoutMs: 15_000,
        },
        properties: { joinability: 'open', custom: {} },
        members: [],
      },
    });
    expect(response.headers.get('etag')).toBe(`"${room.changeNumber}"`);
  });

  it('answers 400 with the failing field for an id that cannot be a room id', async () => {
    const response = await call('GET', `/v1/rooms/${'a'.repeat(65)}`, { token: await platform.token('alice') });
    expect(response.status).toBe(400);
    expect(response.body?.error.details.fields[0].field).toBe('path.roomId');
  });
});

describe('the gateway', () => {
  const postRoutes = routes.filter((r) => ['POST', 'PUT'].includes(r.method));

  it.each(postRoutes.map((r) => [r.method, r.path]))(
    '%s %s answers 400 BAD_REQUEST to a malformed JSON body',
    async (method, path) => {
      const response = await call(method, path.replace(/\{\w+\}/g, 'x'), {
        token: await platform.token('alice', ['admin']),
        body: '{"a":',
      });
      expect(response.status).toBe(400);
      expect(response.body?.error.code).toBe('BAD_REQUEST');
    },
  );

  it('refuses a body over 64 KB with 413 PAYLOAD_TOO_LARGE', async () => {
    const body = JSON.stringify({ account: 'a', padding: 'x'.repeat(70 * 1024) });
    const response = await call('POST', '/v1/dev/tokens', { body });
    expect(response.status).toBe(413);
    expect(response.body?.error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 404 NOT_FOUND for an unknown route', async () => {
    const response = await call('GET', '/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body?.error.code).toBe('NOT_FOUND');
  });

  it('issues dev tokens that the platform accepts, with the scopes asked for', async () => {
    const issued = await call('POST', '/v1/dev/tokens', {
      body: JSON.stringify({ account: 'bob', scopes: ['admin'] }),
    });
    expect(issued.status).toBe(200);
    const room = await call('GET', '/v1/rooms/none', { token: issued.body?.access_token });
    expect(room.status).toBe(404);
  });

  it('names an unknown field of a dev token request', async () => {
    const response = await call('POST', '/v1/dev/tokens', { body: JSON.stringify({ account: 'bob', admin: true }) });
    expect(response.status).toBe(400);
    expect(response.body?.error.details.fields).toEqual([expect.objectContaining({ field: 'body.admin' })]);
  });
});

/** A token from a key this platform has never seen. */
async function startTestPlatformToken(): Promise<string> {
  const pair = await generateSigningKeyPair('stranger');
  return createTokenSigner(pair.privateJwk, 'roomkeeper-test')({ account: 'mallory', scopes: ['admin'], ttlS: 60 });
}
