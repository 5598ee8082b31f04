import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { envelopeKeyFromSecret, sealSidecarVariables } from '../../../core/gameservers/sidecar-envelope';
import { encodeRoomKey, sealReply, sidecarKeysFromRoomKey } from '../../../core/protocol/sidecar-channel';
import {
  accountOfKey,
  closeHarness,
  expectNoLeftovers,
  externalEndpoint,
  listQueues,
  sleep,
  sqsClient,
  startSidecar,
  TestGame,
  withSidecar,
  type SidecarOptions,
  type SidecarRun,
} from './harness';

/**
 * Issue 8.2, the sidecar's side: only what the platform sealed for this room reaches the
 * game, the key never shows where the game could read it, and a reply queue deleted by
 * someone else comes back.
 */
afterAll(() => {
  expectNoLeftovers();
  closeHarness();
});

async function withGame(options: SidecarOptions, scenario: (run: SidecarRun, game: TestGame) => Promise<void>) {
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
        if (run.child.exitCode === null && run.child.signalCode === null) await run.signal('SIGTERM');
        game.close();
        socketDir.cleanup();
      }
    },
  );
}

const isMethod = (method: string) => (m: unknown) => (m as { method?: string }).method === method;

describe('controller sidecar: the reply queue only speaks for the platform', () => {
  it('a forged or replayed command never reaches the game; a sealed one does', async () => {
    await withGame({}, async (run, game) => {
      await game.call('inited', {});
      const forged = { type: 'command', commandId: 'f', method: 'join', params: { key: 'stolen' } } as const;
      const otherRoom = sidecarKeysFromRoomKey('room-other', randomBytes(32));
      const madeUpKey = sidecarKeysFromRoomKey(run.roomId, randomBytes(32));
      // The old format, sealed for another room and replayed here, sealed with a guessed key.
      await run.sendReply(forged, JSON.stringify(forged));
      await run.sendReply(forged, JSON.stringify(sealReply(otherRoom, JSON.stringify(forged))));
      await run.sendReply(forged, JSON.stringify(sealReply(madeUpKey, JSON.stringify(forged))));
      // A forged answer to a call in flight is dropped too (a real one comes from the platform).
      await run.sendReply(
        { type: 'reply', correlationId: 'guess', result: {} },
        JSON.stringify({ type: 'reply', correlationId: 'guess', result: {} }),
      );
      await run.sendReply({ type: 'command', commandId: 'real', method: 'say', params: { text: 'hello' } });

      expect(await game.next(isMethod('say'))).toMatchObject({ method: 'say', params: { text: 'hello' } });
      await run.until(
        () =>
          run.logs.filter((l) => l.message === 'dropped a reply queue message not sealed for this room').length >= 4,
        3_000,
        'four dropped forgeries',
      );
      expect(await game.next(isMethod('join'), 300)).toBeUndefined();
    });
  });

  it('recreates its reply queue when another process deletes it, and answers still arrive', async () => {
    await withGame({}, async (run, game) => {
      await game.call('inited', {});
      const [queueUrl] = await listQueues(run.replyQueueName);
      await sqsClient().send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
      await run.until(
        () => run.logs.find((l) => l.message === 'the reply queue disappeared; creating it again'),
        25_000,
        'the recreation',
      );
      for (let i = 0; i < 50 && (await listQueues(run.replyQueueName)).length === 0; i++) await sleep(100);
      const answer = await game.call('joined', { key: 'k1' }, 10_000);
      expect(answer).toMatchObject({ result: { account: accountOfKey('k1') } });
    });
  });
});

describe('controller sidecar: the room key stays out of the game’s reach', () => {
  it('reads K_room from stdin and closes it before the game starts: no trace in environ, cmdline or stdin', async () => {
    await withSidecar({ args: ['ok'] }, async (run) => {
      await run.until(() => run.gameEvents('answer')[0], 5_000, 'the inited answer');
      const pid = run.child.pid ?? 0;
      const key = encodeRoomKey(run.keys);
      const raw = run.keys.roomKey.toString('latin1');
      for (const file of ['environ', 'cmdline']) {
        const text = readFileSync(`/proc/${pid}/${file}`, 'latin1');
        if (file === 'environ') expect(text).toContain(run.roomId); // the right process
        expect(text).not.toContain(key);
        expect(text).not.toContain(raw);
      }
      // stdin (a socket pair from the fleet) was drained to EOF and its writer closed:
      // through /proc it cannot even be opened (ENXIO), and would yield nothing.
      if (readdirSync(`/proc/${pid}/fd`).includes('0')) {
        let leaked = '';
        try {
          leaked = readFileSync(`/proc/${pid}/fd/0`, 'latin1');
        } catch (error) {
          expect((error as NodeJS.ErrnoException).code).toBe('ENXIO');
        }
        expect(leaked).toBe('');
      }
      const gameEnv = run.gameEvents('start')[0]?.env as Record<string, string>;
      expect(JSON.stringify(gameEnv)).not.toContain(key);
    });
  });

  it('a sidecar whose sealed environment was sealed for another room exits 2 with one clear line, and sends nothing', async () => {
    const envelopeSecret = 'E'.repeat(64);
    const sealed = sealSidecarVariables(envelopeKeyFromSecret(envelopeSecret), 'room-elsewhere', {
      SIDECAR_KEY: encodeRoomKey(sidecarKeysFromRoomKey('room-elsewhere', randomBytes(32))),
    });
    const run = await startSidecar({
      stdin: '',
      env: { SIDECAR_SEALED: sealed, SIDECAR_ENVELOPE_KEY: envelopeSecret },
    });
    try {
      expect((await run.exited).code).toBe(2);
      const line = run.logs.find((l) => l.message === 'cannot open the sealed sidecar environment');
      expect(line).toMatchObject({ level: 'ERROR', reason: 'does-not-open' });
      expect(run.stdout.join('\n')).not.toContain(envelopeSecret);
      expect(run.received).toEqual([]);
      expect(run.gamePid).toBeUndefined();
    } finally {
      await run.dispose();
    }
  });

  it('a sidecar without a valid key exits 2 at once and sends nothing', async () => {
    const run = await startSidecar({ stdin: 'not-a-key\n' });
    try {
      expect((await run.exited).code).toBe(2);
      await sleep(200);
      expect(run.received).toEqual([]);
      expect(run.gamePid).toBeUndefined();
    } finally {
      await run.dispose();
    }
  });
});
