import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { decodeJwt } from 'jose';
import { defaultPlatformIssuer, gameServerAudience, roomAudience } from '../../../core/auth/token-model';
import { createTokenSigner, generateSigningKeyPair } from '../../../core/auth/tokens';
import type { SpawnRequest, Spawner } from '../../../core/gameservers/spawner';
import { createSqsClient } from '../../../core/infra/aws-clients';
import {
  forwardedCall,
  type ControllerReply,
  type ControllerRequest,
} from '../../../core/protocol/controller-messages';
import { configurePlatform } from '../../../lambdas/dependencies';
import { routes } from '../../../lambdas/http/routes';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import {
  emulatorEndpoints,
  startTestApi,
  testAudience,
  testIssuer,
  type TestApi,
  type TestPlatform,
} from '../../helpers/platform';
import { controllerQueueEvent, SidecarChannelDouble } from '../../helpers/sidecar-channel';

/**
 * Issue 8, point 1: the HTTP API accepts only the identity provider's tokens for its own
 * audience. The tokens the platform mints (a game server's login_access_token, a joined
 * player's token) come from the real minting code: room creation over HTTP, and `joined`
 * through the real controller consumer, replying over the SQS emulator. The only stand-in is
 * the game server itself, which answers `inited` at once (ECS has no local engine; the local
 * fleet is covered in test/e2e).
 */
let api: TestApi;
let platform: TestPlatform;
let call: TestApi['call'];
let sqs: SQSClient;
let replyQueue: string;
let admin: string;

const spawned: SpawnRequest[] = [];

const channel = new SidecarChannelDouble();

async function deliver(...messages: ControllerRequest[]) {
  const bodies = await Promise.all(messages.map((m) => channel.seal(m)));
  return processControllerEvents(
    controllerQueueEvent(
      messages.map((m) => m.roomId),
      bodies,
    ),
  );
}

const rpc = (roomId: string, method: 'inited' | 'joined', params: unknown): ControllerRequest => ({
  type: 'rpc',
  roomId,
  sentAt: new Date().toISOString(),
  correlationId: randomUUID(),
  replyTo: replyQueue,
  ...forwardedCall(method, params),
});

async function nextReply(): Promise<ControllerReply | undefined> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: replyQueue, MaxNumberOfMessages: 1, WaitTimeSeconds: 1 }),
    );
    for (const m of Messages) {
      await sqs.send(new DeleteMessageCommand({ QueueUrl: replyQueue, ReceiptHandle: m.ReceiptHandle }));
      return channel.open(m.Body ?? '');
    }
  }
  return undefined;
}

/** A game server that calls `inited` as soon as it is started, through the real consumer. */
class PromptGameServers implements Spawner {
  async spawn(request: SpawnRequest) {
    spawned.push(request);
    setTimeout(() => void deliver(rpc(request.roomId, 'inited', {})), 20);
    return { taskId: `prompt:${request.roomId}`, host: '127.0.0.1', ports: [40001] };
  }
  async stop() {}
}

/** An admin creates a room and its game server confirms the admin's key with `joined`. */
async function adminCreatesAndJoins() {
  const created = await call('POST', '/v1/rooms', { token: admin, body: { gameId: 'arena', version: '1' } });
  expect(created.status).toBe(201);
  const roomId: string = created.body.room.roomId;
  const loginAccessToken = spawned.find((s) => s.roomId === roomId)?.loginAccessToken ?? '';
  await nextReply(); // inited's
  await deliver(rpc(roomId, 'joined', { key: created.body.reservation.key }));
  const joined = await nextReply();
  const result = joined?.type === 'reply' ? (joined.result as { access_token: string; scopes: string[] }) : undefined;
  if (!result) throw new Error(`joined was refused: ${JSON.stringify(joined)}`);
  return { roomId, loginAccessToken, joined: result };
}

beforeAll(async () => {
  api = await startTestApi({ CREATE_RATE_LIMIT_PER_MINUTE: '1000', JOIN_RATE_LIMIT_PER_MINUTE: '1000' });
  ({ platform, call } = api);
  configurePlatform({ spawner: () => new PromptGameServers() });
  sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  replyQueue = (await sqs.send(new CreateQueueCommand({ QueueName: `reply-${randomUUID()}` }))).QueueUrl ?? '';
  admin = await platform.token('ops', ['admin', 'play', 'chat']);
  const put = await call('PUT', '/v1/admin/games/arena/versions/1', {
    token: admin,
    body: { binary: '/games/arena', maxPlayers: 4, serverScopes: ['chat', 'trade'] },
  });
  expect(put.status).toBe(200);
});
afterAll(async () => {
  sqs.destroy();
  await api.close();
});

describe('tokens the platform mints for game servers and rooms', () => {
  let minted: Awaited<ReturnType<typeof adminCreatesAndJoins>>;
  beforeAll(async () => {
    minted = await adminCreatesAndJoins();
  });

  it('an admin who joins hands its game server no admin scope: the server token and the joined token stay within serverScopes', async () => {
    const { roomId, loginAccessToken, joined } = minted;
    expect(decodeJwt(loginAccessToken)).toMatchObject({
      iss: defaultPlatformIssuer,
      aud: gameServerAudience,
      sub: `server:${roomId}`,
      room: roomId,
      scope: 'chat trade',
    });
    expect(joined.scopes).toEqual(['chat']);
    expect(decodeJwt(joined.access_token)).toMatchObject({
      iss: defaultPlatformIssuer,
      aud: roomAudience(roomId),
      sub: 'ops',
      scope: 'chat',
    });
  });

  // Every route that takes a token, from the route table itself: a route added later is covered too.
  it.each(
    routes
      .filter((route) => route.auth === 'jwt')
      .map(
        (route) =>
          [route.method, route.path, route.method === 'GET' || route.method === 'DELETE' ? undefined : {}] as const,
      ),
  )('%s %s: the login_access_token and the joined token get 401', async (method, path, body) => {
    const { roomId, loginAccessToken, joined } = minted;
    const concrete = path
      .replace('{roomId}', roomId)
      .replace('{gameId}', 'arena')
      .replace('{version}', '1')
      .replace(/\{[^}]+\}/g, 'x');
    for (const token of [loginAccessToken, joined.access_token]) {
      const response = await call(method, concrete, { token, body });
      expect([response.status, response.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
      expect(response.body.error.message).toContain('issued by the platform');
    }
  });

  it("the configuration's binary is untouched after a game server's attempt to replace it", async () => {
    const { loginAccessToken } = minted;
    await call('PUT', '/v1/admin/games/arena/versions/1', {
      token: loginAccessToken,
      body: { binary: '/tmp/evil', maxPlayers: 4 },
    });
    const stored = await call('GET', '/v1/admin/games/arena/versions/1', { token: admin });
    expect(stored.body.configuration.binary).toBe('/games/arena');
  });
});

describe('identity provider tokens', () => {
  let signWithIdp: (claims: Record<string, unknown>, scopes: string[]) => Promise<string>;
  beforeAll(() => {
    // This run's identity provider key: the one the dev token route signs with (DEV_SIGNING_JWK).
    const signer = createTokenSigner(JSON.parse(platform.devSigningJwk), testIssuer);
    signWithIdp = (claims, scopes) => signer({ account: 'cognito-user', scopes, ttlS: 300, extra: claims });
  });

  it('a dev token carries the API audience and opens the player API', async () => {
    const issued = await call('POST', '/v1/dev/tokens', { body: { account: 'probe' } });
    const devToken: string = issued.body.access_token;
    expect(decodeJwt(devToken)).toMatchObject({ iss: testIssuer, aud: testAudience, sub: 'probe' });
    expect((await call('GET', '/v1/rooms?gameId=arena&version=1', { token: devToken })).status).toBe(200);
  });

  it.each([
    ['without any audience', {}],
    ['for another API', { aud: 'some-other-api' }],
    ['with client_id of another app client', { client_id: 'some-other-client' }],
  ])('a token of the identity provider %s gets 401', async (_name, claims) => {
    const signed = await signWithIdp(claims, ['admin']);
    for (const path of ['/v1/rooms?gameId=arena&version=1', '/v1/admin/bans/victim']) {
      const response = await call('GET', path, { token: signed });
      expect([response.status, response.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
      expect(response.body.error.message).toContain('not for this API');
    }
  });

  it('a Cognito-style access token (client_id, no aud) opens the player API, and the admin API with the admin scope', async () => {
    const player = await signWithIdp({ client_id: testAudience, token_use: 'access' }, ['play']);
    expect((await call('GET', '/v1/rooms?gameId=arena&version=1', { token: player })).status).toBe(200);
    expect((await call('GET', '/v1/admin/bans/victim', { token: player })).status).toBe(403);
    const admin = await signWithIdp({ client_id: testAudience, token_use: 'access' }, ['admin']);
    expect((await call('GET', '/v1/admin/games/arena/versions/1', { token: admin })).status).toBe(200);
  });

  it('a token with the right claims from a key the identity provider does not publish gets 401', async () => {
    const stranger = await generateSigningKeyPair('stranger');
    const token = await createTokenSigner(
      stranger.privateJwk,
      testIssuer,
    )({ account: 'mallory', scopes: ['admin'], ttlS: 60, audience: testAudience });
    expect((await call('GET', '/v1/admin/bans/victim', { token })).status).toBe(401);
  });
});

describe('game server configurations', () => {
  it.each([[['admin']], [['chat', 'admin']]])(
    'refuses serverScopes %j with 400 naming the field',
    async (serverScopes) => {
      const response = await call('PUT', '/v1/admin/games/arena/versions/2', {
        token: admin,
        body: { binary: '/games/arena', maxPlayers: 4, serverScopes },
      });
      expect([response.status, response.body.error.code]).toEqual([400, 'BAD_REQUEST']);
      expect(response.body.error.message).toContain('body.serverScopes');
      expect(response.body.error.message).toContain('admin');
      expect((await call('GET', '/v1/admin/games/arena/versions/2', { token: admin })).status).toBe(404);
    },
  );
});
