import { assertMatchesOpenApi } from '../../helpers/openapi-contract';

/**
 * The check every integration and e2e HTTP response goes through (test/helpers/http.ts,
 * test/helpers/platform.ts): what the API serves passes, anything the document does not
 * describe fails with the operation, the status and the field.
 */
const json = { 'content-type': 'application/json' };
const error = (code: string, message = 'A sentence.') => ({ error: { code, message } });

const failedRoom = {
  roomId: 'r-1',
  gameId: 'duel',
  version: '1',
  region: 'local',
  state: 'failed',
  settings: { map: 'dust', nested: { any: ['thing'] } },
  maxPlayers: 4,
  players: 0,
  changeNumber: 3,
  failureReason: 'spawn-timeout',
  template: null,
  constants: {
    maxMembers: 4,
    visibility: 'open',
    timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: 0 },
    custom: { mode: 'ranked' },
    migrateHost: false,
    hostTimeoutMs: 15_000,
  },
  properties: { joinability: 'open', custom: {} },
  members: [],
};

const storedConfiguration = {
  binary: '/opt/game',
  args: [],
  env: {},
  ports: 1,
  maxPlayers: 4,
  serverSettings: {},
  spawnTimeoutS: 30,
  reservationTimeoutS: 30,
  serverScopes: [],
  commands: [],
  gameId: 'duel',
  version: '1',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

describe('assertMatchesOpenApi', () => {
  describe('passes what the API serves', () => {
    it.each([
      [
        'a dev token with its type and lifetime',
        'POST',
        '/v1/dev/tokens',
        200,
        { access_token: 'eyJ', token_type: 'Bearer', expires_in: 3600 },
      ],
      ['a failed room with its failure reason', 'GET', '/v1/rooms/r-1', 200, { room: failedRoom }],
      [
        'a stored configuration with its identity and time',
        'PUT',
        '/v1/admin/games/duel/versions/1',
        200,
        { configuration: storedConfiguration },
      ],
      [
        'the local region, which has no location',
        'GET',
        '/v1/admin/regions',
        200,
        { regions: [{ name: 'local', default: true, hosts: ['local-1'] }] },
      ],
      ['a 400 on a room read (a malformed path)', 'GET', '/v1/rooms/%zz', 400, error('BAD_REQUEST')],
      ['a 413 on any route', 'PATCH', '/v1/admin/hosts/h-1', 413, error('PAYLOAD_TOO_LARGE')],
      ['a 503 on a read', 'GET', '/v1/rooms?gameId=duel&version=1', 503, error('UNAVAILABLE')],
      ['a 403 BANNED on a member write', 'PATCH', '/v1/rooms/r-1/members/me', 403, error('BANNED')],
      ['the deployed authorizer’s own 401', 'GET', '/v1/rooms/r-1', 401, { message: 'Unauthorized' }],
      ['/health', 'GET', '/health', 200, { status: 'ok', components: { dynamodb: 'up', sqs: 'up' } }],
      [
        '/health while a part is down',
        'GET',
        '/health',
        503,
        { status: 'degraded', components: { dynamodb: 'down' }, problems: { dynamodb: 'restarting' } },
      ],
      [
        'the key set',
        'GET',
        '/.well-known/jwks.json',
        200,
        { keys: [{ kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'local', alg: 'EdDSA', use: 'sig' }] },
      ],
      ['the gateway’s 404 for an unknown route', 'GET', '/v2/nothing', 404, error('NOT_FOUND')],
    ])('%s', (_what, method, path, status, body) => {
      const headers = path.startsWith('/v1/rooms/r-1') && status === 200 ? { ...json, etag: '"3"' } : json;
      expect(() => assertMatchesOpenApi({ method, path, status, headers, body })).not.toThrow();
    });

    it('a 204 without a body, and a CORS preflight (answered by the gateway, outside the document)', () => {
      expect(() =>
        assertMatchesOpenApi({
          method: 'DELETE',
          path: '/v1/rooms/r-1/members/me',
          status: 204,
          headers: {},
          body: undefined,
        }),
      ).not.toThrow();
      expect(() =>
        assertMatchesOpenApi({ method: 'OPTIONS', path: '/v1/rooms', status: 204, headers: {}, body: undefined }),
      ).not.toThrow();
    });
  });

  describe('fails, naming the operation, the status and the field', () => {
    it('on an undocumented field', () => {
      expect(() =>
        assertMatchesOpenApi({
          method: 'GET',
          path: '/v1/rooms/r-1',
          status: 200,
          headers: { ...json, etag: '"3"' },
          body: { room: { ...failedRoom, hostAddress: '10.0.0.1' } },
        }),
      ).toThrow(
        /getRoom \(GET \/v1\/rooms\/\{roomId\}\) answered 200[\s\S]*undocumented field body\.room\.hostAddress/,
      );
    });

    it('on a private key member in the key set', () => {
      const key = { kty: 'OKP', crv: 'Ed25519', x: 'abc', d: 'secret', kid: 'local', alg: 'EdDSA', use: 'sig' };
      expect(() =>
        assertMatchesOpenApi({
          method: 'GET',
          path: '/.well-known/jwks.json',
          status: 200,
          headers: json,
          body: { keys: [key] },
        }),
      ).toThrow(/undocumented field body\.keys\.0\.d/);
    });

    it('on an undocumented status', () => {
      expect(() =>
        assertMatchesOpenApi({
          method: 'GET',
          path: '/v1/rooms/r-1',
          status: 409,
          headers: json,
          body: error('CONFLICT'),
        }),
      ).toThrow(/getRoom \(GET \/v1\/rooms\/\{roomId\}\) answered 409[\s\S]*status 409 is not documented/);
    });

    it('on an error code the route does not answer with at that status', () => {
      expect(() =>
        assertMatchesOpenApi({
          method: 'POST',
          path: '/v1/rooms/r-1/commands',
          status: 409,
          headers: json,
          body: error('ROOM_FULL'),
        }),
      ).toThrow(
        /sendCommand[\s\S]*body\.error\.code must be equal to one of the allowed values \(allowed: "ROOM_NOT_READY"\)/,
      );
    });

    it('on a missing required field, a missing entity tag, and a body where none is documented', () => {
      const { changeNumber: _changeNumber, ...withoutChangeNumber } = failedRoom;
      expect(() =>
        assertMatchesOpenApi({
          method: 'GET',
          path: '/v1/rooms/r-1',
          status: 200,
          headers: json,
          body: { room: withoutChangeNumber },
        }),
      ).toThrow(/header etag is required and missing[\s\S]*body\.room must have required property 'changeNumber'/);
      expect(() =>
        assertMatchesOpenApi({
          method: 'DELETE',
          path: '/v1/rooms/r-1/members/me',
          status: 204,
          headers: {},
          body: {},
        }),
      ).toThrow(/leaveRoom[\s\S]*a body came where the document says there is none/);
    });

    it('on an answer from a route the document lacks', () => {
      expect(() =>
        assertMatchesOpenApi({ method: 'GET', path: '/v1/secret', status: 200, headers: json, body: { ok: true } }),
      ).toThrow(/GET \/v1\/secret \(no such operation\) answered 200/);
    });
  });
});
