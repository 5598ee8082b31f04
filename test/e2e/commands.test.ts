import { join } from 'node:path';
import WebSocket from 'ws';
import { bundle } from '../../containers/build';
import { jsonClient } from '../helpers/http';
import { startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Issue 12 on the local cloud: the sample game behind a real sidecar, commands from the room's
 * owner through the API to the game and its answer back, and the game's messages to the owner
 * through the long-polled message log.
 */
const sampleGame = join(__dirname, '../../containers/sample-game/bin/sample-game');

let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
let alice: string;
let bob: string;
const sockets: WebSocket[] = [];

beforeAll(async () => {
  await bundle('sample-game');
  test = await startTestCloud([
    {
      gameId: 'sample',
      version: '1',
      configuration: {
        binary: sampleGame,
        maxPlayers: 4,
        spawnTimeoutS: 20,
        env: { SAMPLE_GAME_HOST: '127.0.0.1' },
        commands: ['say'],
      },
    },
  ]);
  call = jsonClient(test.cloud.apiUrl);
  const tokenOf = async (account: string) =>
    (await call('POST', '/v1/dev/tokens', { body: { account } })).body.access_token as string;
  [alice, bob] = await Promise.all([tokenOf('alice'), tokenOf('bob')]);
}, 90_000);

afterAll(async () => {
  for (const socket of sockets) socket.terminate();
  expect(await test?.stop()).toEqual([]);
});

/** A player's WebSocket to the game, registered with their key; collects what the game sends. */
async function play(host: string, port: number, key: string) {
  const socket = new WebSocket(`ws://${host}:${port}`);
  sockets.push(socket);
  const inbox: Array<Record<string, unknown>> = [];
  socket.on('message', (data) => inbox.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(key);
  const next = async (type: string) => {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const index = inbox.findIndex((m) => m.type === type);
      if (index >= 0) return inbox.splice(index, 1)[0];
      if (Date.now() > deadline) throw new Error(`No ${type} from the game (got ${JSON.stringify(inbox)}).`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  return { socket, next };
}

describe('commands and messages between a room owner and the game server', () => {
  let roomId: string;
  let player: Awaited<ReturnType<typeof play>>;

  beforeAll(async () => {
    const created = await call('POST', '/v1/rooms', { token: alice, body: { gameId: 'sample', version: '1' } });
    expect(created.status).toBe(201);
    roomId = created.body.room.roomId;
    const { host, ports, key } = created.body.reservation;
    player = await play(host, ports[0], key);
    expect(await player.next('welcome')).toMatchObject({ account: 'alice' });
  }, 60_000);

  it("relays the owner's say to the game and answers with the game's result", async () => {
    const sent = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: alice,
      body: { command: 'say', args: { text: 'doors close in 5' } },
    });
    expect(sent.status).toBe(200);
    expect(sent.body).toEqual({
      commandId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      command: 'say',
      state: 'answered',
      result: { delivered: 1, players: ['alice'] },
    });
    expect(await player.next('announce')).toEqual({ type: 'announce', text: 'doors close in 5' });

    const read = await call('GET', `/v1/rooms/${roomId}/commands/${sent.body.commandId}`, { token: alice });
    expect([read.status, read.body]).toEqual([200, sent.body]);
    const snooped = await call('GET', `/v1/rooms/${roomId}/commands/${sent.body.commandId}`, { token: bob });
    expect([snooped.status, snooped.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it("answers the game's JSON-RPC error as a failed command", async () => {
    // The sample game's say requires a text: its handler throws, which the game answers -32603.
    const sent = await call('POST', `/v1/rooms/${roomId}/commands`, { token: alice, body: { command: 'say' } });
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ command: 'say', state: 'failed', error: { code: -32603 } });
  });

  it('refuses anyone but the owner with 403', async () => {
    const sent = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: bob,
      body: { command: 'say', args: { text: 'I am the captain now' } },
    });
    expect([sent.status, sent.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(sent.body.error.message).toContain('owner');
  });

  it('refuses a command outside the whitelist with 403 naming the allowed commands', async () => {
    const sent = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: alice,
      body: { command: 'shutdown', args: {} },
    });
    expect([sent.status, sent.body.error.code]).toEqual([403, 'FORBIDDEN']);
    expect(sent.body.error.message).toBe("Command 'shutdown' is not allowed: this room's configuration allows 'say'.");
  });

  it('answers 404 for an unknown room and 400 for a bad body', async () => {
    const unknown = await call('POST', '/v1/rooms/no-such-room/commands', {
      token: alice,
      body: { command: 'say', args: { text: 'x' } },
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'NOT_FOUND']);
    const bad = await call('POST', `/v1/rooms/${roomId}/commands`, { token: alice, body: { command: 'say', args: 3 } });
    expect([bad.status, bad.body.error.code]).toEqual([400, 'BAD_REQUEST']);
  });

  it("brings the game's messages to the owner through GET …/messages, long-polled", async () => {
    const empty = await call('GET', `/v1/rooms/${roomId}/messages`, { token: alice });
    expect(empty.body).toEqual({ messages: [], next: 0 });

    // Waiting before the message exists: answered as soon as it is stored.
    const polled = call('GET', `/v1/rooms/${roomId}/messages?after=0&waitS=15`, { token: alice });
    await new Promise((resolve) => setTimeout(resolve, 300));
    player.socket.send('/owner the harbor is flooding');
    const first = await polled;
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      messages: [
        { seq: 1, data: { type: 'chat', from: 'alice', text: 'the harbor is flooding' }, at: expect.any(String) },
      ],
      next: 1,
    });

    player.socket.send('/owner send help');
    const second = await call('GET', `/v1/rooms/${roomId}/messages?after=${first.body.next}&waitS=15`, {
      token: alice,
    });
    expect(second.body.messages.map((m: { seq: number; data: { text: string } }) => [m.seq, m.data.text])).toEqual([
      [2, 'send help'],
    ]);

    const everything = await call('GET', `/v1/rooms/${roomId}/messages`, { token: alice });
    expect(everything.body.messages.map((m: { seq: number }) => m.seq)).toEqual([1, 2]);

    const snooped = await call('GET', `/v1/rooms/${roomId}/messages`, { token: bob });
    expect([snooped.status, snooped.body.error.code]).toEqual([403, 'FORBIDDEN']);
  });

  it('answers 409 ROOM_NOT_READY once the game server is gone, and the messages stay readable', async () => {
    const pid = (test.cloud.fleet as unknown as { tasks: Map<string, { child: { pid: number } }> }).tasks.get(
      `local:${roomId}`,
    )?.child.pid;
    expect(pid).toEqual(expect.any(Number));
    process.kill(pid ?? -1, 'SIGKILL');
    const deadline = Date.now() + 15_000;
    let state = 'ready';
    while (state !== 'failed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = (await call('GET', `/v1/rooms/${roomId}`, { token: alice })).body.room.state;
    }
    expect(state).toBe('failed');
    const sent = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: alice,
      body: { command: 'say', args: { text: 'anyone?' } },
    });
    expect([sent.status, sent.body.error.code]).toEqual([409, 'ROOM_NOT_READY']);
    expect(sent.body.error.message).toBe(`Room '${roomId}' cannot take commands: the room is failed.`);
    const kept = await call('GET', `/v1/rooms/${roomId}/messages`, { token: alice });
    expect(kept.body.messages).toHaveLength(2);
  });
});
