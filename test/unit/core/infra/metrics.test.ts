import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { SpawnFailedError, SpawnTimeoutError } from '../../../../core/gameservers/errors';
import { countMetric, forceMetrics, spawnMetrics } from '../../../../core/infra/metrics';
import { createRoom } from '../../../../core/rooms/create';
import type { RoomStore, TransitionResult } from '../../../../core/rooms/room-store';
import { sweepRooms } from '../../../../core/rooms/sweep';
import { aRoom } from '../../../helpers/factories';
import { InMemoryLiveRooms } from '../../../helpers/fakes/live-rooms';
import { testSweepPolicy } from '../../../helpers/sweep-policy';

/**
 * Issue 10, point 9: spawn failures and timeouts reach CloudWatch as custom metrics, written
 * by Powertools metrics as EMF lines on stdout, which the Spawn-Failures and Spawn-Timeouts
 * alarms watch (cdk/lib/constructs/operations.ts). The lines are read from stdout here.
 */
const now = new Date('2026-01-01T00:10:00.000Z');
const configuration: GameServerConfiguration = {
  gameId: 'arena',
  version: '1.0.0',
  updatedAt: '2026-01-01T00:00:00.000Z',
  image: 'registry/arena:1.0.0',
  binary: '/game/arena',
  args: [],
  env: {},
  ports: 1,
  maxPlayers: 8,
  serverSettings: {},
  spawnTimeoutS: 10,
  reservationTimeoutS: 30,
  commands: [],
  serverScopes: [],
};

let lines: string[];
let stdout: jest.SpiedFunction<typeof process.stdout.write>;
beforeEach(() => {
  lines = [];
  stdout = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    const text = String(chunk).trim();
    if (text.includes('"_aws"')) lines.push(text);
    return true;
  });
  forceMetrics(true);
});
afterEach(() => {
  forceMetrics(false);
  stdout.mockRestore();
});

const metricsIn = (emitted: string[]) =>
  emitted.map((line) => {
    const doc = JSON.parse(line) as {
      _aws: { CloudWatchMetrics: { Namespace: string; Dimensions: string[][]; Metrics: { Name: string }[] }[] };
      service: string;
      [name: string]: unknown;
    };
    const [directive] = doc._aws.CloudWatchMetrics;
    const name = directive!.Metrics[0]!.Name;
    return { namespace: directive!.Namespace, dimensions: directive!.Dimensions, name, value: doc[name] };
  });

describe('spawn metrics', () => {
  it('createRoom counts one SpawnFailures when the spawner refuses, and still answers SPAWN_FAILED', async () => {
    const failedRooms: string[] = [];
    const rooms = {
      createWithMember: async () => undefined,
      markFailed: async (roomId: string): Promise<TransitionResult> => {
        failedRooms.push(roomId);
        return { applied: true, room: aRoom({ roomId, state: 'failed' }) };
      },
    } as unknown as RoomStore;
    const attempt = createRoom(
      { account: 'player-1', scopes: [], gameId: 'arena', version: '1.0.0', settings: {}, region: 'eu-west-1' },
      {
        rooms,
        configuration,
        spawner: { spawn: () => Promise.reject(new Error('RunTask: capacity unavailable')), stop: async () => {} },
        now: () => now,
        newRoomId: () => 'room-1',
        mintServerToken: async () => 'server-token',
        sleep: async () => {},
        answerBy: new Date(now.getTime() + 25_000),
      },
    );

    await expect(attempt).rejects.toBeInstanceOf(SpawnFailedError);
    expect(failedRooms).toEqual(['room-1']);
    expect(metricsIn(lines)).toEqual([
      { namespace: 'Roomkeeper', dimensions: [['service']], name: spawnMetrics.failed, value: 1 },
    ]);
  });

  it('createRoom counts one SpawnTimeouts when the server misses its deadline while the caller waits', async () => {
    let clock = now.getTime();
    let state: 'spawning' | 'failed' = 'spawning';
    const rooms = {
      createWithMember: async () => undefined,
      recordPlacement: async () => undefined,
      get: async (roomId: string) =>
        aRoom({
          roomId,
          state,
          spawnDeadline: new Date(now.getTime() + 10_000).toISOString(),
          ...(state === 'failed' ? { failureReason: 'spawn-timeout' as const } : {}),
        }),
      markFailed: async (roomId: string): Promise<TransitionResult> => {
        const applied = state === 'spawning';
        state = 'failed';
        return applied ? { applied, room: aRoom({ roomId, state: 'failed' }) } : { applied: false };
      },
    } as unknown as RoomStore;
    const attempt = createRoom(
      { account: 'player-1', scopes: [], gameId: 'arena', version: '1.0.0', settings: {}, region: 'eu-west-1' },
      {
        rooms,
        configuration,
        spawner: {
          spawn: async () => ({ taskId: 'task-1', host: '203.0.113.7', ports: [7777] }),
          stop: async () => {},
        },
        now: () => new Date(clock),
        newRoomId: () => 'room-2',
        mintServerToken: async () => 'server-token',
        // Each pause moves the clock past the deadline and its grace.
        sleep: async () => {
          clock += 15_000;
        },
        answerBy: new Date(now.getTime() + 60_000),
      },
    );

    await expect(attempt).rejects.toBeInstanceOf(SpawnTimeoutError);
    expect(metricsIn(lines).map((m) => m.name)).toEqual([spawnMetrics.timedOut]);
  });

  it('the sweeper counts one SpawnTimeouts per room it fails past its spawn deadline, none for the others', async () => {
    const live = new InMemoryLiveRooms();
    const secondsAgo = (s: number) => new Date(now.getTime() - s * 1000).toISOString();
    const placement = { taskId: 'task', host: '127.0.0.1', ports: [4000] };
    live.save(aRoom({ roomId: 'late', state: 'spawning', spawnDeadline: secondsAgo(30), placement }));
    live.save(aRoom({ roomId: 'on-time', state: 'spawning', spawnDeadline: secondsAgo(1), placement }));
    await sweepRooms(
      {
        live,
        members: { reclaimExpired: async () => 0, read: () => Promise.reject(new Error('no session here is over')) },
        rooms: {
          markFailed: async (roomId, reason): Promise<TransitionResult> => {
            live.end(roomId);
            return { applied: true, room: aRoom({ roomId, state: 'failed', failureReason: reason }) };
          },
          markClosed: () => Promise.reject(new Error('no room here is past a cost bound')),
          endSession: () => Promise.reject(new Error('no session here is over')),
          writeSession: () => Promise.reject(new Error('no session here has a host')),
        },
        spawner: { spawn: () => Promise.reject(new Error('never')), stop: async () => {} },
        memory: { read: async () => ({ lastSweepAt: secondsAgo(5) }), write: async () => {} },
        backlog: async () => 0,
        now: () => now,
      },
      testSweepPolicy,
    );
    expect(metricsIn(lines).map((m) => m.name)).toEqual([spawnMetrics.timedOut]);
  });
});

describe('countMetric', () => {
  it('writes nothing outside Lambda (the local cloud) and nothing when POWERTOOLS_METRICS_DISABLED=true', () => {
    forceMetrics(false);
    countMetric('SpawnFailures', now, {});
    countMetric('SpawnFailures', now, { AWS_LAMBDA_FUNCTION_NAME: 'fn', POWERTOOLS_METRICS_DISABLED: 'true' });
    expect(lines).toEqual([]);
    countMetric('SpawnFailures', now, { AWS_LAMBDA_FUNCTION_NAME: 'fn', POWERTOOLS_SERVICE_NAME: 'roomkeeper-prod' });
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ service: 'roomkeeper-prod', SpawnFailures: 1 });
  });

  it('an EMF document CloudWatch accepts: timestamp, namespace, dimension set and the value under the metric name', () => {
    countMetric('M', now, {
      AWS_LAMBDA_FUNCTION_NAME: 'fn',
      POWERTOOLS_METRICS_NAMESPACE: 'Ns',
      POWERTOOLS_SERVICE_NAME: 'svc',
    });
    expect(lines.map((line) => JSON.parse(line) as unknown)).toEqual([
      {
        _aws: {
          Timestamp: now.getTime(),
          CloudWatchMetrics: [{ Namespace: 'Ns', Dimensions: [['service']], Metrics: [{ Name: 'M', Unit: 'Count' }] }],
        },
        service: 'svc',
        M: 1,
      },
    ]);
  });
});
