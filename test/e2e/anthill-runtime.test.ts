import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * A game server that calls `update_settings` and `check_deployment` exactly as the Anthill
 * runtimes do (`{ "settings": {...} }`; `{}` or no params at all), behind a real sidecar on the
 * local cloud. The owner drives it with commands (`update`, `check`), and the fixture answers
 * each with the platform's answer to its call. The server reports a build in `inited`.
 */
const recordDir = mkdtempSync(join(tmpdir(), 'roomkeeper-anthill-e2e-'));
const recordFile = join(recordDir, 'game.jsonl');
const serverBuild = 'aaaaaaaaaaaaaaaa';
const configuration = {
  binary: fixtureGame,
  args: ['ok', `--protocol=${serverBuild}`],
  maxPlayers: 4,
  spawnTimeoutS: 20,
  commands: ['update', 'check'],
  env: { PROTOCOL_GAME_RECORD: recordFile },
};

let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  test = await startTestCloud([{ gameId: 'anthill', version: '1', configuration }]);
  call = jsonClient(test.cloud.apiUrl);
  for (const [account, scopes] of [
    ['owner', []],
    ['ops', ['admin']],
    ['late', []],
    ['newer', []],
  ] as const) {
    tokens[account] = (await call('POST', '/v1/dev/tokens', { body: { account, scopes } })).body.access_token;
  }
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
  rmSync(recordDir, { recursive: true, force: true });
});

/** The owner has the game call one method; the command's result is the game's JSON-RPC response. */
async function gameCalls(roomId: string, command: 'update' | 'check', args: Record<string, unknown>) {
  const sent = await call('POST', `/v1/rooms/${roomId}/commands`, { token: tokens.owner, body: { command, args } });
  expect([sent.status, sent.body.state]).toEqual([200, 'answered']);
  return sent.body.result as { result?: unknown; error?: { code: number; message: string } };
}

/** What the fixture recorded, by event. */
function recorded(event: string): Array<Record<string, unknown>> {
  return readFileSync(recordFile, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.event === event);
}

describe("the Anthill runtimes' update_settings and check_deployment", () => {
  let roomId: string;

  beforeAll(async () => {
    const created = await call('POST', '/v1/matchmaking/join', {
      token: tokens.owner,
      body: { gameId: 'anthill', version: '1', criteria: { mode: 'duel' } },
    });
    expect([200, 201]).toContain(created.status);
    roomId = created.body.room.roomId;
  }, 30_000);

  it('update_settings { settings } shows in GET, and the next find-or-create judges the room by it', async () => {
    const answer = await gameCalls(roomId, 'update', { settings: { mode: 'ffa', map: 'dunes' } });
    expect(answer).toMatchObject({ result: { status: 'OK' } });
    const view = await call('GET', `/v1/rooms/${roomId}`, { token: tokens.owner });
    expect(view.body.room.settings).toMatchObject({ mode: 'ffa', map: 'dunes' });

    // Criteria on the old settings no longer join it.
    const late = await call('POST', '/v1/matchmaking/join', {
      token: tokens.late,
      body: { gameId: 'anthill', version: '1', criteria: { mode: 'duel' } },
    });
    expect([200, 201, 202]).toContain(late.status);
    expect(late.body.room.roomId).not.toBe(roomId);
    expect(late.body.room.settings).toMatchObject({ mode: 'duel' });
  }, 30_000);

  it('check_deployment (params {} and none) is current, and not once an admin PUTs a new binary', async () => {
    expect(await gameCalls(roomId, 'check', {})).toMatchObject({ result: { current: true } });
    expect(await gameCalls(roomId, 'check', { omit: true })).toMatchObject({ result: { current: true } });
    const calls = recorded('call').filter((line) => line.method === 'check_deployment');
    // The fixture sent exactly the runtimes' shapes: params {} once, and no params member once.
    expect(calls.map((line) => ('params' in line ? line.params : 'absent'))).toEqual([{}, 'absent']);

    const put = await call('PUT', '/v1/admin/games/anthill/versions/1', {
      token: tokens.ops,
      // Another binary: the same game by another path, as a new build's would be.
      body: { ...configuration, binary: `${dirname(fixtureGame)}/./${basename(fixtureGame)}` },
    });
    expect(put.status).toBe(200);
    expect(await gameCalls(roomId, 'check', {})).toMatchObject({ result: { current: false } });
  }, 30_000);

  it('tells the game of a player refused for another build (protocol_mismatch), as a notification', async () => {
    const refused = await call('POST', `/v1/rooms/${roomId}/join`, {
      token: tokens.newer,
      body: { protocol: { hash: 'bbbbbbbbbbbbbbbb' } },
    });
    expect([refused.status, refused.body.error?.code]).toEqual([409, 'PROTOCOL_MISMATCH']);
    const deadline = Date.now() + 10_000;
    let notices: Array<Record<string, unknown>> = [];
    while (Date.now() < deadline) {
      notices = recorded('request').filter((line) => line.method === 'protocol_mismatch');
      if (notices.length > 0) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(notices).toEqual([
      expect.objectContaining({
        params: expect.objectContaining({
          account: 'newer',
          client: { hash: 'bbbbbbbbbbbbbbbb' },
          server: { hash: serverBuild },
        }),
      }),
    ]);
    // A notification: no id, so the game answers nothing.
    expect(notices[0]).not.toHaveProperty('id');
  }, 30_000);
});
