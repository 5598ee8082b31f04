import { queueUrlResolver } from '../../../core/infra/queue-urls';
import { sqsAssignAnswers } from '../../../core/pool/assign';
import { gameRequestId } from '../../../core/protocol/controller-messages';
import { rpcErrorCodes } from '../../../core/protocol/jsonrpc';
import { hashRegistrationKey } from '../../../core/rooms/registration-keys';
import {
  acceptAll,
  accountOfKey,
  closeHarness,
  expectNoLeftovers,
  externalEndpoint,
  sleep,
  sqsClient,
  TestGame,
  withSidecar,
  type Answerer,
  type SidecarOptions,
  type SidecarRun,
} from './harness';

/**
 * The SQS side of the sidecar: correlation of answers, duplicates, timeouts, heartbeats and
 * relayed commands. The test plays both the platform (SQS) and the game (GAME_LAUNCH=external,
 * a PAIR socket on the sidecar's fixed endpoint), so it sees every frame.
 */
afterAll(() => {
  expectNoLeftovers();
  closeHarness();
});

async function withGame(
  options: SidecarOptions,
  scenario: (run: SidecarRun, game: TestGame) => Promise<void>,
): Promise<void> {
  const socketDir = externalEndpoint();
  await withSidecar(
    {
      ...options,
      env: { GAME_LAUNCH: 'external', ZMQ_ENDPOINT: socketDir.endpoint, STATUS_INTERVAL_S: '60', ...options.env },
    },
    async (run) => {
      const game = new TestGame(socketDir.endpoint);
      try {
        await scenario(run, game);
      } finally {
        // Stop the sidecar while the game still listens, so its shutdown notice is taken at once.
        if (run.child.exitCode === null && run.child.signalCode === null) await run.signal('SIGTERM');
        game.close();
        socketDir.cleanup();
      }
    },
  );
}

const keyed =
  (byKey: Record<string, 'ok' | 'rejected'>): Answerer =>
  (request) => {
    if (request.method !== 'joined' && request.method !== 'left') return acceptAll(request);
    // The platform knows each player only by the key's hash, which is all the sidecar sends.
    const key = Object.keys(byKey).find((k) => hashRegistrationKey(k) === request.params.keyHash);
    if (key !== undefined && byKey[key] === 'ok') return acceptAll(request);
    return { error: { code: rpcErrorCodes.keyRejected, message: 'Registration key rejected (unknown).' } };
  };

describe('controller sidecar: platform answers', () => {
  it.concurrent('applies an answer delivered twice only once', async () => {
    const twice: Answerer = (request) => {
      const answer = acceptAll(request) as { result: unknown };
      return request.method === 'joined'
        ? [answer, { error: { code: rpcErrorCodes.keyRejected, message: 'a second, different answer' } }]
        : answer;
    };
    await withGame({ answer: twice, env: { HEARTBEAT_INTERVAL_S: '0.3' } }, async (run, game) => {
      expect(await game.call('inited', {})).toMatchObject({ result: { status: 'OK' } });
      const joined = await game.call('joined', { key: 'key-one' });
      expect(joined).toMatchObject({ result: { account: accountOfKey('key-one') } });
      await run.until(
        () => run.logs.find((l) => l.message === 'dropped a repeated reply'),
        3_000,
        'the duplicate to be dropped',
      );
      expect(game.pending).toEqual([]);
      const beat = await run.until(
        () => run.messages('heartbeat').find((h) => h.load?.players === 1),
        3_000,
        'a heartbeat',
      );
      expect(beat.load).toEqual({ players: 1 });
      expect(run.messages('heartbeat').every((h) => (h.load?.players ?? 0) <= 1)).toBe(true);
    });
  });

  it.concurrent(
    'answers -32004 when the platform does not answer within PLATFORM_REPLY_TIMEOUT_S, and drops the late answer',
    async () => {
      const silentOnJoined: Answerer = (request) => (request.method === 'joined' ? undefined : acceptAll(request));
      await withGame({ answer: silentOnJoined, env: { PLATFORM_REPLY_TIMEOUT_S: '1' } }, async (run, game) => {
        expect(await game.call('inited', {})).toMatchObject({ result: { status: 'OK' } });
        const asked = Date.now();
        const answer = await game.call('joined', { key: 'slow-key' }, 5_000, 'slow-1');
        const waited = Date.now() - asked;
        process.stdout.write(`platform timeout: expected 1000 ms, the game got -32004 after ${waited} ms\n`);
        expect(answer).toMatchObject({ error: { code: rpcErrorCodes.platformTimeout } });
        expect(waited).toBeGreaterThanOrEqual(950);
        expect(waited).toBeLessThan(2_000);

        const late = run.messages('rpc').find((m) => m.method === 'joined');
        // The platform hears the call was abandoned, in the room's group, with the key only as its hash.
        const abandoned = await run.until(() => run.messages('abandoned')[0], 3_000, 'the abandon notice');
        // It names the game's request, as the joined did: the platform undoes only what that request confirmed.
        expect(late?.gameRequest).toBe(gameRequestId('slow-1'));
        expect(abandoned).toEqual({
          type: 'abandoned',
          roomId: run.roomId,
          sentAt: expect.any(String),
          epoch: 1,
          correlationId: late?.correlationId,
          method: 'joined',
          keyHash: hashRegistrationKey('slow-key'),
          gameRequest: gameRequestId('slow-1'),
        });
        const groups = run.received.filter((r) => r.message.type !== 'heartbeat').map((r) => r.groupId);
        expect(new Set(groups)).toEqual(new Set([run.roomId]));
        await run.sendReply({ type: 'reply', correlationId: late?.correlationId ?? '', result: { late: true } });
        await run.sendReply({ type: 'reply', correlationId: 'never-asked', result: {} });
        await run.until(
          () => run.logs.filter((l) => l.message === 'dropped a reply nobody waits for (late or foreign)').length >= 2,
          3_000,
          'the late and foreign answers to be dropped',
        );
        expect(game.pending).toEqual([]);
        // Still working.
        expect(await game.call('left', { key: 'slow-key' })).toMatchObject({ result: { status: 'OK' } });
      });
    },
  );

  it.concurrent(
    'forwards a joined the game sends twice with one id once, and answers both the same; the id with another key is -32600',
    async () => {
      const silentOnJoined: Answerer = (request) => (request.method === 'joined' ? undefined : acceptAll(request));
      await withGame({ answer: silentOnJoined, env: { PLATFORM_REPLY_TIMEOUT_S: '10' } }, async (run, game) => {
        expect(await game.call('inited', {})).toMatchObject({ result: { status: 'OK' } });
        const frame = (key: string) => JSON.stringify({ jsonrpc: '2.0', id: 'dup', method: 'joined', params: { key } });
        await game.send(frame('twice-key'));
        await game.send(frame('twice-key'));
        await game.send(frame('other-key'));
        expect(await game.next((m) => (m as { id?: unknown }).id === 'dup')).toEqual({
          jsonrpc: '2.0',
          id: 'dup',
          error: {
            code: rpcErrorCodes.invalidRequest,
            message: 'Invalid request: this id names another call still in flight.',
          },
        });
        const forwarded = await run.until(
          () => run.messages('rpc').find((m) => m.method === 'joined'),
          3_000,
          'joined',
        );
        expect(forwarded.gameRequest).toBe(gameRequestId('dup'));
        await run.sendReply({
          type: 'reply',
          correlationId: forwarded.correlationId,
          result: { access_token: 't', account: 'twice', info: {}, scopes: [] },
        });
        const isDup = (m: unknown) => (m as { id?: unknown }).id === 'dup';
        const answers = [await game.next(isDup), await game.next(isDup)];
        expect(answers.map((a) => JSON.stringify(a))).toEqual([
          JSON.stringify({
            jsonrpc: '2.0',
            id: 'dup',
            result: { access_token: 't', account: 'twice', info: {}, scopes: [] },
          }),
          JSON.stringify({
            jsonrpc: '2.0',
            id: 'dup',
            result: { access_token: 't', account: 'twice', info: {}, scopes: [] },
          }),
        ]);
        expect(run.messages('rpc').filter((m) => m.method === 'joined')).toHaveLength(1);
      });
    },
  );

  it.concurrent(
    'lets the game retry inited after a platform timeout, and stops a game the platform refuses',
    async () => {
      let initeds = 0;
      const answer: Answerer = () => {
        initeds += 1;
        return initeds === 1
          ? undefined
          : { error: { code: rpcErrorCodes.roomClosed, message: 'The room is failed.' } };
      };
      await withGame({ answer, env: { PLATFORM_REPLY_TIMEOUT_S: '0.5' } }, async (run, game) => {
        expect(await game.call('inited', {})).toMatchObject({ error: { code: rpcErrorCodes.platformTimeout } });
        expect(await game.call('inited', {})).toMatchObject({ error: { code: rpcErrorCodes.roomClosed } });
        expect(await run.exitReport()).toMatchObject({ reason: 'inited-refused' });
        expect((await run.exited).code).toBe(1);
      });
    },
  );
});

describe('controller sidecar: heartbeats', () => {
  it.concurrent('carry the players the platform confirmed: joined minus left', async () => {
    const answer = keyed({ a: 'ok', b: 'ok', c: 'rejected' });
    await withGame({ answer, env: { HEARTBEAT_INTERVAL_S: '0.3' } }, async (run, game) => {
      const first = await run.until(() => run.messages('heartbeat')[0], 3_000, 'a first heartbeat');
      expect(first).toEqual({
        type: 'heartbeat',
        roomId: run.roomId,
        sentAt: expect.any(String),
        epoch: 1,
        load: { players: 0 },
      });
      await game.call('inited', {});
      expect(await game.call('joined', { key: 'a' })).toHaveProperty('result');
      expect(await game.call('joined', { key: 'b' })).toHaveProperty('result');
      expect(await game.call('joined', { key: 'c' })).toMatchObject({ error: { code: rpcErrorCodes.keyRejected } });
      await run.until(
        () => run.messages('heartbeat').find((h) => h.load?.players === 2),
        3_000,
        'a heartbeat with 2 players',
      );
      expect(await game.call('left', { key: 'a' })).toHaveProperty('result');
      const beat = await run.until(
        () =>
          run
            .messages('heartbeat')
            .slice(-1)
            .find((h) => h.load?.players === 1),
        3_000,
        'a heartbeat with 1 player',
      );
      expect(beat.load).toEqual({ players: 1 });
      // Heartbeats never carry a key.
      expect(JSON.stringify(run.messages('heartbeat'))).not.toMatch(/"(a|b|c)"/);
      const times = run.received.filter((r) => r.message.type === 'heartbeat').map((r) => r.receivedAt);
      const gaps = times.slice(1).map((t, i) => t - (times[i] ?? 0));
      process.stdout.write(
        `heartbeats: ${times.length} at a median gap of ${gaps.sort((x, y) => x - y)[gaps.length >> 1]} ms (interval 300 ms)\n`,
      );
    });
  });
});

describe('controller sidecar: commands', () => {
  it.concurrent('relays whitelisted commands once and sends the answers back; refuses the others', async () => {
    await withGame({}, async (run, game) => {
      await game.call('inited', {});
      await run.sendReply({ type: 'command', commandId: 'c-1', method: 'say', params: { text: 'hello' } });
      await run.sendReply({ type: 'command', commandId: 'c-1', method: 'say', params: { text: 'hello' } });
      await run.sendReply({ type: 'command', commandId: 'c-2', method: 'format-disk', params: {} });
      const relayed = (await game.next((m) => (m as { method?: string }).method === 'say')) as Record<string, unknown>;
      expect(relayed).toEqual({ jsonrpc: '2.0', id: expect.any(Number), method: 'say', params: { text: 'hello' } });
      await game.send(JSON.stringify({ jsonrpc: '2.0', id: relayed.id, result: { said: 'hello' } }));
      await run.until(
        () => run.logs.find((l) => l.message === 'refused a command outside the whitelist'),
        3_000,
        'the refusal',
      );
      await run.until(() => run.logs.find((l) => l.message === 'dropped a repeated command'), 3_000, 'the duplicate');
      await run.until(
        () => run.logs.find((l) => l.message === 'relayed a command' && l.answer === 'result'),
        3_000,
        'the answer',
      );
      await sleep(200);
      expect(game.pending).toEqual([]);
      // One answer per command, MAC'd and on the FIFO queue like every sidecar message.
      await run.until(
        () => (run.messages('commandResult').length >= 2 ? true : undefined),
        3_000,
        'both command results',
      );
      const results = run
        .messages('commandResult')
        .map(({ commandId, result, error }) => ({ commandId, result, error }));
      expect(results.sort((a, b) => a.commandId.localeCompare(b.commandId))).toEqual([
        { commandId: 'c-1', result: { said: 'hello' }, error: undefined },
        {
          commandId: 'c-2',
          result: undefined,
          error: { code: -32003, message: "Command 'format-disk' is not in the whitelist." },
        },
      ]);
    });
  });

  it.concurrent('a standby sidecar relays nothing behind its assign until the game answered it', async () => {
    // A standby server is probed at once; this game answers that status when it likes.
    await withGame({ env: { STANDBY: '1', STATUS_TIMEOUT_S: '30' } }, async (run, game) => {
      await game.call('inited', { standby: true });
      await run.sendReply({ type: 'command', commandId: 'hand-over', method: 'assign', params: { room_id: 'r' } });
      const assign = (await game.next((m) => (m as { method?: string }).method === 'assign')) as Record<
        string,
        unknown
      >;
      await run.sendReply({ type: 'command', commandId: 'behind', method: 'say', params: { text: 'after' } });
      // The say is on the queue; the sidecar does not poll it while the hand-over is unanswered.
      await sleep(1_500);
      expect(game.pending.filter((m) => (m as { method?: string }).method === 'say')).toEqual([]);
      await game.send(JSON.stringify({ jsonrpc: '2.0', id: assign.id, result: { status: 'OK' } }));
      const said = (await game.next((m) => (m as { method?: string }).method === 'say', 5_000)) as Record<
        string,
        unknown
      >;
      expect(said.params).toEqual({ text: 'after' });
    });
  });

  it.concurrent(
    "a standby sidecar answers another create's assign -32007 on its assign queue; the game sees one",
    async () => {
      await withGame({ env: { STANDBY: '1', STATUS_TIMEOUT_S: '30' } }, async (run, game) => {
        await game.call('inited', { standby: true });
        const sqs = sqsClient();
        const answers = sqsAssignAnswers(sqs, 'rk-test-reply-', () => Promise.resolve(run.keys), queueUrlResolver(sqs));
        const wait = (commandId: string) => answers(run.roomId, commandId, 10_000);
        await run.sendReply({ type: 'command', commandId: 'first', method: 'assign', params: { room_id: run.roomId } });
        const assign = (await game.next((m) => (m as { method?: string }).method === 'assign')) as Record<
          string,
          unknown
        >;
        await run.sendReply({
          type: 'command',
          commandId: 'second',
          method: 'assign',
          params: { room_id: run.roomId },
        });
        await game.send(JSON.stringify({ jsonrpc: '2.0', id: assign.id, result: { status: 'OK' } }));

        // Both creates wait on the one queue; each gets the answer to its own command.
        const [first, second] = await Promise.all([wait('first'), wait('second')]);
        expect(first).toEqual({ kind: 'answered', result: { status: 'OK' } });
        expect(second).toMatchObject({ kind: 'failed', error: { code: rpcErrorCodes.alreadyAssigned } });
        await sleep(300);
        expect(game.pending.filter((m) => (m as { method?: string }).method === 'assign')).toEqual([]);
      });
    },
  );

  it.concurrent('a relayed command makes a protocol-only game join a player, which the heartbeat counts', async () => {
    await withSidecar({ args: ['ok'], env: { HEARTBEAT_INTERVAL_S: '0.3' } }, async (run) => {
      await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
      await run.sendReply({ type: 'command', commandId: 'join-1', method: 'join', params: { key: 'player-key' } });
      const joined = await run.until(
        () => run.gameEvents('answer').find((e) => e.method === 'joined'),
        5_000,
        'the joined answer',
      );
      expect(joined.response).toMatchObject({ result: { account: accountOfKey('player-key') } });
      await run.until(
        () => run.messages('heartbeat').find((h) => h.load?.players === 1),
        3_000,
        'a heartbeat with 1 player',
      );
    });
  });
});

describe('controller sidecar: SQS trouble', () => {
  it.concurrent('answers -32603 when the request queue cannot be reached, and does not crash', async () => {
    await withGame(
      { env: { CONTROLLER_REQUEST_QUEUE_URL: 'http://127.0.0.1:1/000000000000/nowhere.fifo' } },
      async (run, game) => {
        const answer = await game.call('inited', {}, 10_000);
        expect(answer).toMatchObject({
          error: { code: rpcErrorCodes.internalError, message: 'The platform could not be reached.' },
        });
        expect(run.child.exitCode).toBeNull();
        expect(await game.call('inited', {}, 10_000)).toMatchObject({ error: { code: rpcErrorCodes.internalError } });
      },
    );
  });
});
