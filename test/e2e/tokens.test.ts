import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { gameServerAudience } from '../../core/auth/token-model';
import { localAudience, localIssuer } from '../../local/cloud';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Issue 8, point 1 in the local cloud as developers run it: a real game server gets its
 * login_access_token from the platform's own key, which is not the dev tokens' key and not
 * in the key set the API trusts; dev tokens carry the API audience.
 */
const recordDir = mkdtempSync(join(tmpdir(), 'roomkeeper-tokens-e2e-'));
const recordFile = join(recordDir, 'game.jsonl');

let test: TestCloud;
let call: ReturnType<typeof jsonClient>;

beforeAll(async () => {
  test = await startTestCloud([
    {
      gameId: 'tokens',
      version: '1',
      configuration: {
        binary: fixtureGame,
        args: ['ok'],
        maxPlayers: 4,
        serverScopes: ['chat'],
        env: { PROTOCOL_GAME_RECORD: recordFile },
      },
    },
  ]);
  call = jsonClient(test.cloud.apiUrl);
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
  rmSync(recordDir, { recursive: true, force: true });
});

/** The environment the game process was started with, as the fixture recorded it. */
function gameEnvironment(): Record<string, string> {
  const start = readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { event: string; env?: Record<string, string> })
    .find((event) => event.event === 'start');
  return start?.env ?? {};
}

describe('tokens in the local cloud', () => {
  it("dev tokens carry the API audience; the game's token is the platform's, from a key the API does not trust, and opens nothing", async () => {
    const issued = await call('POST', '/v1/dev/tokens', { body: { account: 'ops', scopes: ['admin', 'chat'] } });
    const devToken: string = issued.body.access_token;
    expect(decodeJwt(devToken)).toMatchObject({ iss: localIssuer, aud: localAudience });

    const created = await call('POST', '/v1/rooms', { token: devToken, body: { gameId: 'tokens', version: '1' } });
    expect(created.status).toBe(201);
    const serverToken = gameEnvironment().login_access_token ?? '';
    expect(decodeJwt(serverToken)).toMatchObject({
      iss: 'roomkeeper-platform',
      aud: gameServerAudience,
      scope: 'chat',
      room: created.body.room.roomId,
    });

    const trusted = (await call('GET', '/.well-known/jwks.json')).body.keys.map((key: { kid: string }) => key.kid);
    expect(trusted).toContain(decodeProtectedHeader(devToken).kid);
    expect(trusted).not.toContain(decodeProtectedHeader(serverToken).kid);

    for (const [method, path] of [
      ['GET', `/v1/rooms/${created.body.room.roomId}`],
      ['GET', '/v1/admin/bans/anyone'],
    ] as const) {
      const response = await call(method, path, { token: serverToken });
      expect([response.status, response.body.error.code]).toEqual([401, 'UNAUTHORIZED']);
    }
  });
});
