import { randomUUID } from 'node:crypto';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { processTreeAlive } from '../../helpers/processes';
import {
  closeHarness,
  expectNoLeftovers,
  externalEndpoint,
  listQueues,
  loginToken,
  protocolGame,
  sleep,
  TestGame,
  withSidecar,
  type GameEvent,
} from './harness';

/**
 * The controller sidecar's life with one game process: how it starts the game, forwards
 * `inited`, and every way it ends. Real sidecar bundle, real game process, real ZeroMQ,
 * real SQS emulator; the test answers as the platform.
 */
afterAll(() => {
  expectNoLeftovers();
  closeHarness();
});

const startOf = (events: GameEvent[]) => events.find((e) => e.event === 'start');

describe('controller sidecar: starting the game', () => {
  it.concurrent(
    'starts <binary> <endpoint> <ports> <args…> with the protocol environment and nothing of its own',
    async () => {
      await withSidecar(
        {
          args: ['ok', '--extra', 'value with spaces'],
          gameEnv: {
            CONFIGURED_VAR: 'from-configuration',
            login_access_token: 'configured-may-not-override',
            room_id: 'configured-may-not-override',
          },
        },
        async (run) => {
          await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
          const start = startOf(run.gameEvents());
          const argv = start?.argv as string[];
          expect(argv).toEqual([
            expect.stringMatching(/^ipc:\/\/\/.+\/game\.sock$/),
            '38801,38802',
            'ok',
            '--extra',
            'value with spaces',
          ]);
          // A fresh private directory for the socket: only the sidecar's user may enter it.
          expect(statSync(dirname((argv[0] ?? '').slice('ipc://'.length))).mode & 0o777).toBe(0o700);

          const env = start?.env as Record<string, string>;
          expect(Object.keys(env).sort()).toEqual(
            [
              'CONFIGURED_VAR',
              'HOME',
              'LANG',
              'PATH',
              'PROTOCOL_GAME_RECORD',
              'discovery_services',
              'game_max_players',
              'login_access_token',
              'room_id',
              'room_settings',
              'server_settings',
            ].sort(),
          );
          expect(env).toMatchObject({
            room_id: run.roomId,
            login_access_token: loginToken,
            game_max_players: '4',
            CONFIGURED_VAR: 'from-configuration',
            LANG: 'C.UTF-8',
          });
          expect(JSON.parse(env.discovery_services ?? '')).toEqual({ login: 'http://127.0.0.1:1/login' });
          expect(JSON.parse(env.room_settings ?? '')).toEqual({ map: 'harbor', mode: 'duel' });
          expect(JSON.parse(env.server_settings ?? '')).toEqual({ tick: 20 });
          expect(
            Object.keys(env).filter((name) =>
              /^(AWS_|SQS_|CONTROLLER_|REPLY_|ROOM_ID$|GAME_|LOGIN_|POWERTOOLS_)/.test(name),
            ),
          ).toEqual([]);
        },
      );
    },
  );

  it.concurrent(
    'forwards inited to the FIFO queue (group = room, dedup = correlation id) and answers the game',
    async () => {
      await withSidecar({ args: ['ok'] }, async (run) => {
        const answer = await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
        expect(answer.response).toEqual({ jsonrpc: '2.0', id: 1, result: { status: 'OK' } });

        const forwarded = run.received.filter((r) => r.message.type === 'rpc');
        expect(forwarded).toHaveLength(1);
        const [{ message, groupId, deduplicationId }] = forwarded as [(typeof forwarded)[number]];
        expect(message).toEqual({
          type: 'rpc',
          roomId: run.roomId,
          sentAt: expect.any(String),
          epoch: 1,
          correlationId: expect.stringMatching(/^[A-Za-z0-9_-]{22,}$/),
          replyTo: expect.stringMatching(new RegExp(`/${run.replyQueueName}$`)),
          method: 'inited',
          params: { settings: { map: 'harbor', mode: 'duel', startedWithPorts: '38801,38802' } },
        });
        expect(groupId).toBe(run.roomId);
        expect(deduplicationId).toBe(message.type === 'rpc' ? message.correlationId : undefined);

        // Ready: the health checks start.
        await run.until(() => run.gameEvents('request').some((e) => e.method === 'status'), 3_000, 'a status probe');
      });
    },
  );

  it.concurrent('works over tcp on 127.0.0.1 when ZMQ_TRANSPORT=tcp', async () => {
    await withSidecar({ args: ['ok'], env: { ZMQ_TRANSPORT: 'tcp' } }, async (run) => {
      const answer = await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
      expect(answer.response).toMatchObject({ result: { status: 'OK' } });
      expect((startOf(run.gameEvents())?.argv as string[])[0]).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    });
  });

  it.concurrent('never logs the game token, even when the game prints it', async () => {
    await withSidecar({ args: ['ok', '--print-token'] }, async (run) => {
      await run.until(
        () => run.logs.find((l) => l.message === 'game output' && String(l.line).includes('token=')),
        5_000,
        'the game output',
      );
      await run.signal('SIGTERM');
      const all = run.stdout.join('\n');
      expect(all).not.toContain(loginToken);
      expect(all).not.toContain(loginToken.split('.')[2]);
      expect(run.logs.find((l) => l.message === 'game output' && String(l.line).includes('token='))?.line).toBe(
        'token=[redacted]',
      );
      expect(run.logs.every((l) => l.component === 'controller' && l.roomId === run.roomId)).toBe(true);
    });
  });

  it.concurrent(
    'gives the game its room id, and logs the id as the game printed it (its token still redacted)',
    async () => {
      // The platform's room ids are UUIDs: 36 base64url characters, the shape of a secret.
      const roomId = randomUUID();
      await withSidecar({ roomId, args: ['ok', '--print-room'] }, async (run) => {
        const printed = await run.until(
          () => run.logs.find((l) => l.message === 'game output' && String(l.line).startsWith('room=')),
          5_000,
          'the game output',
        );
        expect(startOf(run.gameEvents())?.env).toMatchObject({ room_id: roomId });
        expect(printed.line).toBe(`room=${roomId} token=[redacted]`);
        expect(run.stdout.join('\n')).not.toContain(loginToken);
      });
    },
  );
});

describe('controller sidecar: inited', () => {
  it.concurrent('refuses a second inited with -32003 without forwarding it', async () => {
    await withSidecar({ args: ['inited-twice'] }, async (run) => {
      const answers = await run.until(
        () => {
          const got = run.gameEvents('answer');
          return got.length >= 2 && got;
        },
        5_000,
        'two inited answers',
      );
      expect(answers.map((a) => a.response)).toEqual([
        { jsonrpc: '2.0', id: 1, result: { status: 'OK' } },
        { jsonrpc: '2.0', id: 2, error: { code: -32003, message: 'inited was already accepted.' } },
      ]);
      expect(run.messages('rpc')).toHaveLength(1);
    });
  });

  it.concurrent('stops a game whose inited the platform refuses, and reports inited-refused', async () => {
    const refusal = { code: -32002, message: 'The spawn deadline has passed; the game server must exit.' };
    await withSidecar({ args: ['ok'], answer: () => ({ error: refusal }) }, async (run) => {
      const report = await run.exitReport();
      expect(report).toMatchObject({ type: 'exited', reason: 'inited-refused', exitCode: 3, signal: null });
      expect(run.gameEvents('answer')[0]?.response).toEqual({ jsonrpc: '2.0', id: 1, error: refusal });
      expect((await run.exited).code).toBe(1);
    });
  });

  it.concurrent('kills a refused game that does not exit within KILL_GRACE_S', async () => {
    await withSidecar(
      {
        args: ['ok', '--stay-after-refusal', '--ignore-sigterm'],
        env: { KILL_GRACE_S: '1' },
        answer: () => ({ error: { code: -32002, message: 'closed' } }),
      },
      async (run) => {
        const refusedAt = (await run.until(() => run.gameEvents('answer')[0], 5_000, 'the refusal')).at;
        const report = await run.exitReport();
        const gone = await run.exited;
        process.stdout.write(
          `inited refused: game killed ${gone.at - refusedAt} ms after the refusal (grace 1000 ms)\n`,
        );
        expect(report).toMatchObject({ reason: 'inited-refused', signal: 'SIGKILL' });
        expect(gone.at - refusedAt).toBeGreaterThanOrEqual(900);
        expect(gone.at - refusedAt).toBeLessThan(2_500);
      },
    );
  });
});

describe('controller sidecar: spawn timeout', () => {
  it.concurrent(
    'kills a game that never calls inited at SPAWN_TIMEOUT_S (±1 s) and reports spawn-timeout',
    async () => {
      await withSidecar({ args: ['never-inited'], env: { SPAWN_TIMEOUT_S: '2' } }, async (run) => {
        const start = await run.until(() => startOf(run.gameEvents()), 5_000, 'the game start');
        const gamePid = start.pid;
        await run.until(() => !processTreeAlive(gamePid), 5_000, 'the game to die');
        const lived = Date.now() - start.at;
        process.stdout.write(`spawn timeout: expected 2000 ms, game killed after ${lived} ms\n`);
        expect(Math.abs(lived - 2_000)).toBeLessThanOrEqual(1_000);
        expect(await run.exitReport()).toMatchObject({ reason: 'spawn-timeout', signal: 'SIGTERM', exitCode: null });
        expect((await run.exited).code).toBe(1);
        expect(run.messages('rpc')).toHaveLength(0);
      });
    },
  );

  it.concurrent('SIGKILLs a game that ignores SIGTERM once KILL_GRACE_S has passed', async () => {
    await withSidecar(
      { args: ['never-inited', '--ignore-sigterm'], env: { SPAWN_TIMEOUT_S: '1', KILL_GRACE_S: '0.5' } },
      async (run) => {
        const start = await run.until(() => startOf(run.gameEvents()), 5_000, 'the game start');
        const report = await run.exitReport();
        const lived = (run.received.find((r) => r.message.type === 'exited')?.receivedAt ?? 0) - start.at;
        process.stdout.write(
          `spawn timeout with a stubborn game: expected 1000 + 500 ms, exited report after ${lived} ms\n`,
        );
        expect(report).toMatchObject({ reason: 'spawn-timeout', signal: 'SIGKILL' });
        expect(run.gameEvents('signal')).toHaveLength(1);
        expect(Math.abs(lived - 1_500)).toBeLessThanOrEqual(1_000);
      },
    );
  });
});

describe('controller sidecar: the game ends by itself', () => {
  it.concurrent('reports crashed with the exit code of a game that dies after inited', async () => {
    await withSidecar({ args: ['crash-after-inited'] }, async (run) => {
      expect(await run.exitReport()).toMatchObject({ reason: 'crashed', exitCode: 13, signal: null });
      expect((await run.exited).code).toBe(1);
      expect(await listQueues(run.replyQueueName)).toEqual([]);
    });
  });

  it.concurrent('reports crashed for a game that exits before inited', async () => {
    await withSidecar({ args: ['exit-before-inited'] }, async (run) => {
      expect(await run.exitReport()).toMatchObject({ reason: 'crashed', exitCode: 1 });
    });
  });

  it.concurrent('reports crashed when the binary cannot be started at all', async () => {
    await withSidecar({ binary: `${protocolGame}.missing` }, async (run) => {
      // Without the setpriv guard the spawn itself fails (exitCode null); with it, setpriv's exec does (127).
      expect(await run.exitReport()).toMatchObject({ reason: 'crashed', signal: null });
      expect([null, 127]).toContain(run.messages('exited')[0]?.exitCode);
      expect((await run.exited).code).toBe(1);
    });
  });
});

describe('controller sidecar: killed outright', () => {
  it.concurrent('takes the game with it when the sidecar is SIGKILLed (parent-death signal)', async () => {
    await withSidecar({ args: ['ok', '--ignore-sigterm'] }, async (run) => {
      await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
      const gamePid = run.gamePid ?? 0;
      expect(processTreeAlive(gamePid)).toBe(true);
      await run.signal('SIGKILL');
      await run.until(() => !processTreeAlive(gamePid), 2_000, 'the game to die with its sidecar');
    });
  });
});

describe('controller sidecar: SIGTERM', () => {
  it.concurrent('sends the shutdown notice, ends the game, deletes its reply queue and exits 0', async () => {
    await withSidecar({ args: ['ok'] }, async (run) => {
      await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
      const gamePid = run.gamePid ?? 0;
      expect(await listQueues(run.replyQueueName)).toHaveLength(1);

      const exit = await run.signal('SIGTERM');
      expect(exit.code).toBe(0);
      expect(processTreeAlive(gamePid)).toBe(false);
      expect(run.gameEvents('request').find((e) => e.method === 'shutdown')?.params).toEqual({
        reason: 'SIGTERM',
        graceS: 0.5,
      });
      expect(run.gameEvents('exit')).toEqual([expect.objectContaining({ code: 0, why: 'shutdown' })]);
      expect(run.messages('exited')).toEqual([expect.objectContaining({ reason: 'exited', exitCode: 0 })]);
      expect(await listQueues(run.replyQueueName)).toEqual([]);
    });
  });

  it.concurrent('ends a game that ignores the notice and SIGTERM with SIGKILL at KILL_GRACE_S', async () => {
    await withSidecar(
      { args: ['ok', '--ignore-shutdown', '--ignore-sigterm'], env: { KILL_GRACE_S: '1' } },
      async (run) => {
        await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
        const gamePid = run.gamePid ?? 0;
        const stopAt = Date.now();
        const exit = await run.signal('SIGTERM');
        process.stdout.write(
          `SIGTERM with a stubborn game: sidecar exited after ${exit.at - stopAt} ms (grace 1000 ms)\n`,
        );
        expect(exit.code).toBe(0);
        expect(processTreeAlive(gamePid)).toBe(false);
        expect(run.gameEvents('signal')).toHaveLength(1);
        expect(run.messages('exited')).toEqual([expect.objectContaining({ reason: 'exited', signal: 'SIGKILL' })]);
        expect(exit.at - stopAt).toBeLessThan(3_000);
      },
    );
  });

  it.concurrent('stops cleanly on SIGTERM before the game ever connected', async () => {
    await withSidecar({ args: ['silent'] }, async (run) => {
      await run.until(() => startOf(run.gameEvents()), 5_000, 'the game start');
      const stopAt = Date.now();
      const exit = await run.signal('SIGTERM');
      expect(exit.code).toBe(0);
      expect(exit.at - stopAt).toBeLessThan(1_500);
      expect(run.messages('exited')).toEqual([expect.objectContaining({ reason: 'exited', signal: 'SIGTERM' })]);
    });
  });
});

describe('controller sidecar: SIGTERM with the game in its own container (GAME_LAUNCH=external, as on ECS)', () => {
  it.concurrent(
    'takes a game that connected and called inited before the sidecar bound, and on SIGTERM gives it shutdown and the grace to leave before exiting',
    async () => {
      const socket = externalEndpoint();
      // ECS starts the game first: it connects to a socket nobody has bound yet and calls at once.
      const game = new TestGame(socket.endpoint);
      const early = game.call('inited', {}, 10_000);
      try {
        await withSidecar(
          {
            env: { GAME_LAUNCH: 'external', ZMQ_ENDPOINT: socket.endpoint, STATUS_INTERVAL_S: '60', KILL_GRACE_S: '5' },
          },
          async (run) => {
            expect(await early).toMatchObject({ result: { status: 'OK' } });
            run.child.kill('SIGTERM');
            const shutdown = await game.next((m) => (m as { method?: string }).method === 'shutdown', 5_000);
            // The whole grace: the sidecar cannot signal this game, ECS does once the sidecar is gone.
            expect(shutdown).toMatchObject({ params: { reason: 'SIGTERM', graceS: 5 } });
            // The sidecar waits for the game while it closes its players: no `exited` yet, still running.
            await sleep(1_500);
            expect(run.messages('exited')).toEqual([]);
            expect(run.child.exitCode).toBeNull();
            const leftAt = Date.now();
            game.close();
            const exit = await run.exited;
            expect(exit.code).toBe(0);
            expect(exit.at).toBeGreaterThanOrEqual(leftAt);
            expect(run.messages('exited')).toEqual([expect.objectContaining({ reason: 'exited' })]);
          },
        );
      } finally {
        game.close();
        socket.cleanup();
      }
    },
  );
});

describe('controller sidecar: bounds it enforces itself', () => {
  it.concurrent(
    'ends the room at its maximum lifetime: shutdown notice, the game gone, exited reported, exit 0',
    async () => {
      await withSidecar(
        { args: ['ok'], env: { ROOM_MAX_LIFETIME_S: '2', ROOM_BOUND_MARGIN_S: '0.5' } },
        async (run) => {
          await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
          const gamePid = run.gamePid ?? 0;
          const exit = await run.exited;
          expect(exit.code).toBe(0);
          expect(processTreeAlive(gamePid)).toBe(false);
          expect(run.gameEvents('request').find((e) => e.method === 'shutdown')?.params).toEqual({
            reason: 'lifetime',
            graceS: 0.5,
          });
          expect(run.messages('exited')).toEqual([expect.objectContaining({ reason: 'exited', exitCode: 0 })]);
          expect(await listQueues(run.replyQueueName)).toEqual([]);
        },
      );
    },
  );

  it.concurrent(
    'ends the room when the platform closed it for a cost bound (`stop`), as its own bound would; a second stop changes nothing',
    async () => {
      await withSidecar({ args: ['ok'] }, async (run) => {
        await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
        const gamePid = run.gamePid ?? 0;
        await run.sendReply({ type: 'stop', reason: 'empty' });
        await run.sendReply({ type: 'stop', reason: 'lifetime' });
        const exit = await run.exited;
        expect(exit.code).toBe(0);
        expect(processTreeAlive(gamePid)).toBe(false);
        expect(
          run
            .gameEvents('request')
            .filter((e) => e.method === 'shutdown')
            .map((e) => e.params),
        ).toEqual([{ reason: 'empty', graceS: 0.5 }]);
        expect(run.messages('exited')).toEqual([expect.objectContaining({ reason: 'exited', exitCode: 0 })]);
        expect(await listQueues(run.replyQueueName)).toEqual([]);
      });
    },
  );
});
