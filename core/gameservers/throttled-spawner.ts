import { cryptoRandom, jitteredBackoffMs, type BackoffPolicy, type Clock, type RandomSource } from '../infra/clock';
import { classifyDependencyError } from '../infra/dependency-errors';
import { NoHealthyHostError } from './errors';
import type { SpawnRequest, Spawner } from './spawner';

/**
 * ECS's RunTask rate for one account and region (Fargate): 20 calls a second sustained,
 * bursts of 100, a token bucket shared by every caller. The API Gateway throttle of the
 * room-creating routes is sized from it (cdk/lib/roomkeeper-stack.ts).
 */
export const runTaskRate = { ratePerS: 20, burst: 100 } as const;

/**
 * Pauses between RunTask attempts ECS throttled: full jitter under ceilings of 100, 200, 400 …
 * ms, at most 3.2 s. A burst of creations past ECS's bucket spreads over the refill (100
 * tokens are back within 5 s at 20/s) instead of retrying in lockstep and being throttled
 * again.
 */
export const runTaskBackoff: BackoffPolicy = { baseMs: 100, capMs: 3_200 };

/**
 * How long a create may keep retrying a throttled RunTask, from the request's start: API
 * Gateway answers 504 at 29 s, and the create still has to record the placement and answer
 * (202 when the server is not up yet). 22 s at 20 starts/s queues 440 creations beyond a full
 * bucket of 100.
 */
export const runTaskQueueMs = 22_000;

/** When a create refused for ECS's rate may come back: the bucket's 100 starts refill in 5 s. */
const throttledRetryAfterS = runTaskRate.burst / runTaskRate.ratePerS;

/** A StopTask ECS throttled is retried this long; the sweeper stops whatever is still left. */
const stopBudgetMs = 5_000;

/** Whether `error`, or an error it wraps (`cause`), is ECS refusing the call's rate (`ThrottlingException`, 429). */
const isThrottling = (error: unknown): boolean => classifyDependencyError(error)?.kind === 'throttled';

export interface ThrottledSpawnerOptions {
  readonly clock: Clock;
  /** @default runTaskBackoff */
  readonly backoff?: BackoffPolicy;
  /** @default cryptoRandom */
  readonly random?: RandomSource;
}

/**
 * Queues room creations beyond ECS's RunTask rate instead of dropping them: a spawn ECS
 * refuses with `ThrottlingException` is retried after a full-jitter pause, again and again,
 * until it starts or its request's `startBy` would pass. Then it fails as
 * `NoHealthyHostError` (503 `NO_HEALTHY_HOST`, the room `failed`), never as a 500 or a
 * gateway timeout. Retrying is safe: RunTask's `clientToken` is the room id, and a throttled
 * call started nothing.
 *
 * The queue is each caller's own wait, not a shared counter: a Lambda execution environment
 * serves one request at a time, so a token bucket in the process would see one creation at
 * a time and could not pace the account. The account-wide pacing is ECS's own bucket
 * (answered here with backoff) and the API Gateway throttle in front of the creating routes.
 */
export class ThrottledSpawner implements Spawner {
  private readonly backoff: BackoffPolicy;
  private readonly random: RandomSource;
  /** The inner spawner's own listing: the orphan pass finds the tasks to stop through it. */
  readonly listServers?: Spawner['listServers'];

  constructor(
    /** The spawner that starts tasks (ECS). */
    readonly inner: Spawner,
    private readonly options: ThrottledSpawnerOptions,
  ) {
    this.backoff = options.backoff ?? runTaskBackoff;
    this.random = options.random ?? cryptoRandom;
    const { listServers } = inner;
    if (listServers) this.listServers = () => listServers.call(inner);
  }

  async spawn(request: SpawnRequest): Promise<Awaited<ReturnType<Spawner['spawn']>>> {
    const { clock } = this.options;
    // Without a caller's bound, the configuration's spawn deadline counted from now.
    const startBy = (
      request.startBy ?? new Date(clock.now().getTime() + request.configuration.spawnTimeoutS * 1000)
    ).getTime();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.inner.spawn(request);
      } catch (error) {
        if (!isThrottling(error)) throw error;
        const pauseMs = jitteredBackoffMs(attempt, this.backoff, this.random);
        if (clock.now().getTime() + pauseMs >= startBy) {
          throw new NoHealthyHostError(
            `ECS is throttling task starts; no game server could be started in time (${attempt + 1} attempts). Try again shortly.`,
            { cause: error, headers: { 'retry-after': String(throttledRetryAfterS) } },
          );
        }
        await clock.sleep(pauseMs);
      }
    }
  }

  async stop(taskId: string, reason: string): Promise<void> {
    const { clock } = this.options;
    const giveUpAt = clock.now().getTime() + stopBudgetMs;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.inner.stop(taskId, reason);
      } catch (error) {
        const pauseMs = jitteredBackoffMs(attempt, this.backoff, this.random);
        if (!isThrottling(error) || clock.now().getTime() + pauseMs >= giveUpAt) throw error;
        await clock.sleep(pauseMs);
      }
    }
  }
}
