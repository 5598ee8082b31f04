import { ECSClient, RunTaskCommand, StopTaskCommand } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import { NoHealthyHostError, SpawnFailedError } from '../../../../core/gameservers/errors';
import type { SpawnRequest, Spawner } from '../../../../core/gameservers/spawner';
import { runTaskBackoff, ThrottledSpawner } from '../../../../core/gameservers/throttled-spawner';
import { ManualClock } from '../../../../core/infra/clock';
import { sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import { envelopeKeyFromSecret } from '../../../../core/gameservers/sidecar-envelope';
import type { Placement } from '../../../../core/rooms/model';
import { ecsError } from '../../../helpers/aws-errors';

/** Issue 10, point 6: creations beyond ECS's RunTask rate wait with full-jitter backoff, bounded by `startBy`. */
const start = new Date('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(start.getTime() + ms);

const request: SpawnRequest = {
  roomId: 'room-1',
  region: 'eu-west-1',
  maxPlayers: 8,
  roomSettings: { map: 'harbor' },
  loginAccessToken: 'server-token',
  configuration: {
    gameId: 'arena',
    version: '1.2.0',
    updatedAt: '2026-01-01T00:00:00.000Z',
    image: 'registry/arena:1.2.0',
    binary: '/game/arena',
    args: [],
    env: {},
    ports: 2,
    maxPlayers: 8,
    serverSettings: {},
    spawnTimeoutS: 30,
    reservationTimeoutS: 30,
    commands: [],
    serverScopes: [],
  },
};

const throttled = () => ecsError('ThrottlingException', 'Rate exceeded');
const placement: Placement = { taskId: 'task-1', host: '10.0.0.1', ports: [7777, 7778] };

/** A spawner that answers with the scripted outcomes in order, recording when each call came. */
function scripted(outcomes: (Error | Placement)[], clock: ManualClock) {
  const calls: number[] = [];
  const inner: Spawner = {
    spawn: () => {
      calls.push(clock.now().getTime() - start.getTime());
      const next = outcomes.shift() ?? placement;
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    },
    stop: () => Promise.resolve(),
  };
  return { inner, calls };
}

/** Settles `promise`, moving the manual clock each time the code under test sleeps on it. */
async function drive<T>(promise: Promise<T>, clock: ManualClock): Promise<T> {
  let settled = false;
  const done = promise.finally(() => (settled = true));
  done.catch(() => undefined);
  for (let turns = 0; !settled && turns < 10_000; turns++) {
    await new Promise((resolve) => setImmediate(resolve));
    if (clock.pendingSleeps > 0) clock.advance(1);
  }
  return done;
}

describe('ThrottledSpawner: what is throttling (core/infra/dependency-errors.ts)', () => {
  it('retries ECS throttling wrapped in a SpawnFailedError and an HTTP 429, never an access denial', async () => {
    const clock = new ManualClock(start);
    const wrapped = new SpawnFailedError('ECS refused', { cause: throttled() });
    const tooMany = Object.assign(new Error('slow down'), { $metadata: { httpStatusCode: 429 } });
    const { inner, calls } = scripted([wrapped, tooMany, placement], clock);
    const spawner = new ThrottledSpawner(inner, { clock });
    await expect(drive(spawner.spawn({ ...request, startBy: at(30_000) }), clock)).resolves.toEqual(placement);
    expect(calls).toHaveLength(3);

    const denied = new SpawnFailedError('ECS refused', { cause: new Error('AccessDeniedException') });
    const refusing = scripted([denied], clock);
    const strict = new ThrottledSpawner(refusing.inner, { clock });
    await expect(drive(strict.spawn({ ...request, startBy: at(60_000) }), clock)).rejects.toBe(denied);
    expect(refusing.calls).toHaveLength(1);
  });
});

describe('ThrottledSpawner (fake clock)', () => {
  it('retries a throttled start after full-jitter pauses under doubling ceilings, then returns the placement', async () => {
    const clock = new ManualClock(start);
    const { inner, calls } = scripted([throttled(), throttled(), throttled(), placement], clock);
    // The largest draw: each pause is its ceiling, 100, 200, 400 ms.
    const spawner = new ThrottledSpawner(inner, { clock, random: () => 0.999999 });

    const result = await drive(spawner.spawn({ ...request, startBy: at(30_000) }), clock);

    expect(result).toEqual(placement);
    const pauses = calls.slice(1).map((t, i) => t - calls[i]!);
    expect(pauses).toEqual([100, 200, 400]);
  });

  it('draws each pause uniformly up to its ceiling (full jitter), capped at runTaskBackoff.capMs', async () => {
    const clock = new ManualClock(start);
    const outcomes = Array.from({ length: 8 }, throttled);
    const { inner, calls } = scripted([...outcomes, placement], clock);
    const spawner = new ThrottledSpawner(inner, { clock, random: () => 0.5 });

    await drive(spawner.spawn({ ...request, startBy: at(60_000) }), clock);

    const pauses = calls.slice(1).map((t, i) => t - calls[i]!);
    const ceilings = pauses.map((_, attempt) => Math.min(runTaskBackoff.capMs, runTaskBackoff.baseMs * 2 ** attempt));
    expect(pauses).toEqual(ceilings.map((ceiling) => 1 + Math.floor(0.5 * ceiling)));
    expect(Math.max(...pauses)).toBeLessThanOrEqual(runTaskBackoff.capMs);
  });

  it('gives up with NoHealthyHostError (503, never a 500) once the next pause would pass startBy', async () => {
    const clock = new ManualClock(start);
    const { inner, calls } = scripted(Array.from({ length: 1_000 }, throttled), clock);
    const spawner = new ThrottledSpawner(inner, { clock, random: () => 0.999999 });

    const outcome = drive(spawner.spawn({ ...request, startBy: at(5_000) }), clock);

    await expect(outcome).rejects.toBeInstanceOf(NoHealthyHostError);
    // The caller learns when ECS's bucket has refilled (docs/scale.md: the start-rate edge).
    await expect(outcome).rejects.toMatchObject({ code: 'NO_HEALTHY_HOST', headers: { 'retry-after': '5' } });
    expect(calls.at(-1)).toBeLessThan(5_000);
    expect(clock.now().getTime() - start.getTime()).toBeLessThan(5_000);
    expect(calls.length).toBeGreaterThan(3);
  });

  it('without startBy, waits at most the configuration spawn timeout from now', async () => {
    const clock = new ManualClock(start);
    const { inner } = scripted(Array.from({ length: 1_000 }, throttled), clock);
    const spawner = new ThrottledSpawner(inner, { clock, random: () => 0.999999 });

    const quick = { ...request, configuration: { ...request.configuration, spawnTimeoutS: 2 } };

    await expect(drive(spawner.spawn(quick), clock)).rejects.toBeInstanceOf(NoHealthyHostError);
    expect(clock.now().getTime() - start.getTime()).toBeLessThan(2_000);
    expect(clock.now().getTime() - start.getTime()).toBeGreaterThan(1_000);
  });

  it('does not retry other failures: they reach the caller as they are', async () => {
    const clock = new ManualClock(start);
    const refused = new SpawnFailedError('ECS could not start the game server task (ESSENTIAL_CONTAINER).');
    const { inner, calls } = scripted([refused], clock);
    const spawner = new ThrottledSpawner(inner, { clock });

    await expect(drive(spawner.spawn({ ...request, startBy: at(30_000) }), clock)).rejects.toBe(refused);
    expect(calls).toEqual([0]);
  });
});

describe('ThrottledSpawner around the real ECS spawner (aws-sdk-client-mock)', () => {
  const ecsMock = mockClient(ECSClient);
  afterEach(() => ecsMock.reset());
  afterAll(() => ecsMock.restore());

  function ecsSpawner(clock: ManualClock) {
    const ecs = new EcsSpawner(new ECSClient({ region: 'eu-west-1' }), {
      cluster: 'games',
      taskDefinition: 'roomkeeper-game:3',
      subnets: ['subnet-a'],
      securityGroups: ['sg-1'],
      controllerContainer: 'controller',
      sidecar: {
        region: 'eu-west-1',
        controllerRequestQueueUrl: 'https://sqs/controller-requests.fifo',
        replyQueuePrefix: 'rk-reply-',
        discoveryServices: {},
      },
      sidecarKeys: (roomId) => Promise.resolve(sidecarKeys(Buffer.alloc(32, 1), roomId)),
      envelopeKey: () => Promise.resolve(envelopeKeyFromSecret('e'.repeat(64))),
    });
    return new ThrottledSpawner(ecs, { clock, random: () => 0.5 });
  }

  it('a RunTask ECS throttles is retried with backoff, with the same clientToken, and the task still starts', async () => {
    const clock = new ManualClock(start);
    ecsMock
      .on(RunTaskCommand)
      .rejectsOnce(throttled())
      .rejectsOnce(throttled())
      .resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/games/abc' }] });

    const result = await drive(ecsSpawner(clock).spawn({ ...request, startBy: at(25_000) }), clock);

    expect(result.taskId).toBe('arn:aws:ecs:eu-west-1:1:task/games/abc');
    const calls = ecsMock.commandCalls(RunTaskCommand);
    expect(calls).toHaveLength(3);
    // One room, one task: every attempt carries the room id as the idempotency token.
    expect(calls.map((call) => call.args[0].input.clientToken)).toEqual(['room-1', 'room-1', 'room-1']);
    // Two pauses: ceilings 100 and 200 ms, drawn at half.
    expect(clock.now().getTime() - start.getTime()).toBe(51 + 101);
  });

  it('a RunTask throttled until startBy fails the create cleanly as NO_HEALTHY_HOST', async () => {
    const clock = new ManualClock(start);
    ecsMock.on(RunTaskCommand).rejects(throttled());

    const outcome = drive(ecsSpawner(clock).spawn({ ...request, startBy: at(2_000) }), clock);

    await expect(outcome).rejects.toBeInstanceOf(NoHealthyHostError);
    expect(ecsMock.commandCalls(RunTaskCommand).length).toBeGreaterThan(1);
  });

  it('a StopTask ECS throttles is retried too', async () => {
    const clock = new ManualClock(start);
    ecsMock.on(StopTaskCommand).rejectsOnce(throttled()).resolves({});

    await drive(ecsSpawner(clock).stop('arn:aws:ecs:eu-west-1:1:task/games/abc', 'spawn-timeout'), clock);

    expect(ecsMock.commandCalls(StopTaskCommand)).toHaveLength(2);
  });
});
