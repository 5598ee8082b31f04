import fc from 'fast-check';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { routes } from '../../../lambdas/http/routes';
import { startApiGateway, type LocalApiGateway } from '../../../local/api-gateway';
import { httpHandlers } from '../../../local/http-handlers';
import { setHashOf } from '../../../core/versions/protocol';
import { aRoom } from '../../helpers/factories';
import { hostileBody, hostileObject, hostilePageToken, malformedSegment } from '../../helpers/hostile-json';
import { jsonClient } from '../../helpers/http';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Every player route against arbitrary and nearly-valid bodies: the answer is a 2xx or a
 * 4xx with one of our codes, never a 5xx, and a room already stored is never corrupted.
 */
let platform: TestPlatform;
let gateway: LocalApiGateway;
let call: ReturnType<typeof jsonClient>;
let token: string;

beforeAll(async () => {
  // Generous limits: the fuzzer sends hundreds of joins from one account on purpose.
  platform = await startTestPlatform({ JOIN_RATE_LIMIT_PER_MINUTE: '10000', CREATE_RATE_LIMIT_PER_MINUTE: '10000' });
  gateway = await startApiGateway({ routes, handlers: httpHandlers, port: 0 });
  call = jsonClient(gateway.url);
  token = await platform.token('fuzzer');
});
afterAll(async () => {
  await gateway.close();
  await platform.close();
});

const settingsLike = fc.dictionary(fc.string({ minLength: 1, maxLength: 70 }), fc.jsonValue({ maxDepth: 2 }), {
  maxKeys: 5,
});
/** A client's build: well-formed, a components map that is not its hash's, or anything at all. */
const componentsLike = fc.dictionary(
  fc.constantFrom('Game::Player', 'Game::Chat', 'Door', 'bad name'),
  fc.constantFrom('0123456789abcdef', 'fedcba9876543210', 'XYZ'),
  { maxKeys: 3 },
);
const protocolLike = fc.oneof(
  {
    arbitrary: fc.constantFrom(
      { hash: '0123456789abcdef' },
      { hash: '0123456789abcdef', builtAt: '2026-01-01T00:00:00Z' },
    ),
    weight: 3,
  },
  { arbitrary: componentsLike.map((components) => ({ hash: setHashOf(components), components })), weight: 3 },
  { arbitrary: componentsLike.map((components) => ({ hash: '0123456789abcdef', components })), weight: 1 },
  hostileObject,
  fc.jsonValue({ maxDepth: 2 }),
);
/** Mostly well-shaped requests with odd values, so validation, lookups and limits all get exercised. */
const nearlyValid = fc.record(
  {
    gameId: fc.oneof({ arbitrary: fc.constantFrom('no-such-game', 'other_game'), weight: 4 }, fc.string()),
    version: fc.oneof({ arbitrary: fc.constantFrom('1', '1.0.0'), weight: 4 }, fc.string()),
    settings: fc.oneof({ arbitrary: settingsLike, weight: 6 }, fc.constant({ blob: 'x'.repeat(5000) }), {
      arbitrary: hostileObject,
      weight: 2,
    }),
    criteria: fc.oneof({ arbitrary: settingsLike, weight: 3 }, hostileObject),
    maxPlayers: fc.oneof({ arbitrary: fc.integer({ min: 1, max: 100 }), weight: 6 }, fc.integer(), fc.double()),
    region: fc.constantFrom('local', 'local', 'local', 'us-east-1', 'Mars!'),
    latencies: fc.dictionary(fc.constantFrom('us-east-1', 'local', 'eu-west-1'), fc.integer({ min: 0, max: 1000 })),
    protocol: protocolLike,
  },
  { requiredKeys: ['gameId', 'version'] },
);
const bodies = fc.oneof(
  { arbitrary: nearlyValid, weight: 4 },
  { arbitrary: fc.jsonValue(), weight: 1 },
  { arbitrary: hostileBody(['settings', 'criteria', 'latencies', 'gameId', 'protocol']), weight: 1 },
);

function acceptable(status: number): boolean {
  return (status >= 200 && status < 300) || (status >= 400 && status < 500);
}

describe('fuzzing the player routes', () => {
  it.each([
    ['POST', '/v1/rooms'],
    ['POST', '/v1/matchmaking/join'],
  ])('%s %s answers 1,000 arbitrary bodies without a 5xx', async (method, path) => {
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const response = await call(method, path, { token, body });
        statuses[response.status] = (statuses[response.status] ?? 0) + 1;
        expect(acceptable(response.status)).toBe(true);
        if (response.status >= 400) expect(typeof response.body.error.code).toBe('string');
      }),
      { numRuns: 1000 },
    );
    process.stdout.write(`${method} ${path} fuzz: ${JSON.stringify(statuses)} (expected no 5xx)\n`);
  });

  it('join: arbitrary bodies and room ids never corrupt a stored room', async () => {
    const rooms = dynamoRoomStore(platform.db, platform.tableName);
    const room = aRoom({ state: 'ready', players: 0, maxPlayers: 3 });
    await rooms.createWithMember(room);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(fc.constant(room.roomId), fc.string({ maxLength: 80 }).map(encodeURIComponent), malformedSegment),
        fc.oneof(fc.jsonValue(), hostileBody(['settings', 'protocol']), fc.record({ protocol: protocolLike })),
        async (roomId, body) => {
          const response = await call('POST', `/v1/rooms/${roomId}/join`, { token, body });
          expect(acceptable(response.status)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
    const stored = await rooms.get(room.roomId);
    expect([stored.players <= stored.maxPlayers, stored.state, stored.settings]).toEqual([
      true,
      'ready',
      room.settings,
    ]);
  });

  it('list: arbitrary query strings never give a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('gameId', 'version', 'region', 'limit', 'nextToken', 'x'),
          fc.oneof(fc.string(), hostilePageToken),
        ),
        async (query) => {
          const response = await call('GET', `/v1/rooms?${new URLSearchParams(query).toString()}`, { token });
          expect(acceptable(response.status)).toBe(true);
        },
      ),
      { numRuns: 500 },
    );
  });
});
