import WebSocket from 'ws';
import { bundle } from '../../../containers/build';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { hashRegistrationKey } from '../../../core/rooms/registration-keys';
import { sampleProtocol } from '../../../containers/sample-game/protocol';
import { freePort } from '../../../local/free-port';
import { processTreeAlive } from '../../helpers/processes';
import { acceptAll, closeHarness, expectNoLeftovers, sampleGame, withSidecar, type Answerer } from './harness';

/**
 * The sample game behind the real sidecar, with real WebSocket players: keys confirmed
 * through the platform (this test), chat relayed, leaving reported, shutdown honoured.
 */
afterAll(() => {
  expectNoLeftovers();
  closeHarness();
});

interface Player {
  readonly socket: WebSocket;
  readonly inbox: Array<Record<string, unknown>>;
  readonly closed: Promise<{ code: number; reason: string }>;
  next(type: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

async function connect(port: number, key: string): Promise<Player> {
  const socket = new WebSocket(`ws://127.0.0.1:${port}`);
  const inbox: Array<Record<string, unknown>> = [];
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  socket.on('message', (data) => inbox.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  socket.send(key);
  const next = async (type: string, timeoutMs = 5_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = inbox.findIndex((m) => m.type === type);
      if (index >= 0) return inbox.splice(index, 1)[0] as Record<string, unknown>;
      if (Date.now() > deadline)
        throw new Error(`No ${type} message within ${timeoutMs} ms (got ${JSON.stringify(inbox)}).`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  return { socket, inbox, closed, next };
}

/** The players' keys by their hash: like the real platform, this one is sent only the hash. */
const players = new Map(['alice', 'bob'].map((name) => [hashRegistrationKey(`${name}-key`), name]));

const platform: Answerer = (request) => {
  if (request.method !== 'joined') return acceptAll(request);
  const account = players.get(request.params.keyHash);
  if (account === undefined) {
    return { error: { code: rpcErrorCodes.keyRejected, message: 'Registration key rejected (used).' } };
  }
  return { result: { access_token: 'player-token', account, info: {}, scopes: [] } };
};

describe('sample game behind the controller sidecar', () => {
  it('confirms players with joined, relays chat, reports left, and shuts down on SIGTERM', async () => {
    await bundle('sample-game');
    const port = await freePort();
    await withSidecar(
      {
        binary: sampleGame,
        args: [],
        answer: platform,
        gameEnv: { SAMPLE_GAME_HOST: '127.0.0.1' },
        env: { GAME_PORTS: String(port), HEARTBEAT_INTERVAL_S: '0.3' },
      },
      async (run) => {
        const inited = await run.until(() => run.messages('rpc').find((m) => m.method === 'inited'), 5_000, 'inited');
        // Its build too: the hashes of containers/sample-game/components.json.
        expect(inited.params).toEqual({
          settings: { map: 'harbor', mode: 'duel', maxPlayers: 4 },
          protocol: sampleProtocol(),
        });
        const ready = await run.until(
          () => run.logs.find((l) => l.message === 'game output' && String(l.line).includes('"ready"')),
          5_000,
          'the game to be ready',
        );
        const started = run.logs.find((l) => l.message === 'game started');
        const gameToReady = (JSON.parse(String(ready.line)) as { sinceProcessStartMs: number }).sinceProcessStartMs;
        const spawnToInited = Date.parse(inited.sentAt) - Date.parse(String(started?.timestamp));
        process.stdout.write(
          `sample game: sidecar process start → game spawned ${String(started?.sinceProcessStartMs)} ms; ` +
            `spawn (bin/sample-game) → inited sent ${spawnToInited} ms; game process start → inited answered ${gameToReady} ms\n`,
        );

        const alice = await connect(port, 'alice-key');
        expect(await alice.next('welcome')).toEqual({
          type: 'welcome',
          account: 'alice',
          players: ['alice'],
          history: [],
        });

        const thief = await connect(port, 'stolen-key');
        expect(await thief.next('error')).toEqual({
          type: 'error',
          code: rpcErrorCodes.keyRejected,
          message: 'Registration key rejected (used).',
        });
        expect((await thief.closed).code).toBe(4001);

        const bob = await connect(port, 'bob-key');
        expect(await bob.next('welcome')).toMatchObject({ players: ['alice', 'bob'] });
        expect(await alice.next('joined')).toEqual({ type: 'joined', account: 'bob' });
        bob.socket.send('hello harbor');
        expect(await alice.next('chat')).toEqual({ type: 'chat', from: 'bob', text: 'hello harbor' });

        await run.sendReply({ type: 'command', commandId: 'say-1', method: 'say', params: { text: 'restart soon' } });
        expect(await alice.next('announce')).toEqual({ type: 'announce', text: 'restart soon' });
        // The game's answer goes back to the platform, for the owner who sent the command.
        const answered = await run.until(() => run.messages('commandResult')[0], 5_000, 'the command result');
        expect(answered).toMatchObject({ commandId: 'say-1', result: { delivered: 2, players: ['alice', 'bob'] } });
        // A player of another build was refused: the sidecar relays the notice, the game logs it.
        const mismatch = {
          account: 'carol',
          client: { hash: '1111111111111111' },
          server: { hash: sampleProtocol().hash },
        };
        await run.sendReply({
          type: 'notice',
          method: 'protocol_mismatch',
          params: { ...mismatch, added: [], removed: [], changed: [], newer: 'unknown' },
        });
        const logged = await run.until(
          () => run.logs.find((l) => l.message === 'game output' && String(l.line).includes('another build')),
          5_000,
          'the game to log the protocol_mismatch notice',
        );
        expect(JSON.parse(String(logged.line))).toMatchObject({ level: 'warn', ...mismatch });
        // A player's "/owner …" line is a message to the room's owner, not chat.
        bob.socket.send('/owner the harbor is flooding');
        const note = await run.until(() => run.messages('message')[0], 5_000, 'the message to the owner');
        expect(note.data).toEqual({ type: 'chat', from: 'bob', text: 'the harbor is flooding' });
        expect(alice.inbox.filter((m) => m.type === 'chat')).toEqual([]);

        alice.socket.close();
        expect(await bob.next('left')).toEqual({ type: 'left', account: 'alice' });
        const left = await run.until(() => run.messages('rpc').find((m) => m.method === 'left'), 5_000, 'left');
        expect(left.params).toEqual({ keyHash: hashRegistrationKey('alice-key') });
        await run.until(
          () =>
            run
              .messages('heartbeat')
              .slice(-1)
              .find((h) => h.load?.players === 1),
          3_000,
          'load 1',
        );
        // The platform never saw the rejected player's slot confirmed, and logs carry no key.
        expect(run.stdout.join('\n')).not.toMatch(/alice-key|bob-key|stolen-key/);

        const gamePid = run.gamePid ?? 0;
        const exit = await run.signal('SIGTERM');
        expect(exit.code).toBe(0);
        expect(await bob.closed).toEqual({ code: 1001, reason: 'SIGTERM' });
        expect(processTreeAlive(gamePid)).toBe(false);
        expect(run.messages('exited')).toEqual([expect.objectContaining({ reason: 'exited', exitCode: 0 })]);
      },
    );
  });

  it('calls a joined the platform did not answer in time (-32004) again with the same id, and the player gets in', async () => {
    await bundle('sample-game');
    const port = await freePort();
    let joineds = 0;
    const silentOnFirstJoined: Answerer = (request) => {
      if (request.method !== 'joined') return acceptAll(request);
      joineds += 1;
      return joineds === 1 ? undefined : platform(request);
    };
    await withSidecar(
      {
        binary: sampleGame,
        args: [],
        answer: silentOnFirstJoined,
        gameEnv: { SAMPLE_GAME_HOST: '127.0.0.1' },
        env: { GAME_PORTS: String(port), PLATFORM_REPLY_TIMEOUT_S: '1' },
      },
      async (run) => {
        await run.until(() => run.messages('rpc').find((m) => m.method === 'inited'), 5_000, 'inited');
        const alice = await connect(port, 'alice-key');
        expect(await alice.next('welcome', 10_000)).toMatchObject({ account: 'alice' });
        const [first, retry, ...more] = run.messages('rpc').filter((m) => m.method === 'joined');
        expect(more).toEqual([]);
        // The same game request (its JSON-RPC id) in a new forward: the platform knows it as the first.
        expect(first?.gameRequest).toEqual(expect.any(String));
        expect(retry?.gameRequest).toBe(first?.gameRequest);
        expect(retry?.correlationId).not.toBe(first?.correlationId);
        expect(run.messages('abandoned')).toEqual([expect.objectContaining({ gameRequest: first?.gameRequest })]);
        expect((await run.signal('SIGTERM')).code).toBe(0);
      },
    );
  });
});
