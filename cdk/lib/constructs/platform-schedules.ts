import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import * as iam from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { bindCostBounds, grantOrphanSweeps } from './cost-bounds';
import { bindNeeds, type PlatformResources } from './platform-resources';
import { ProjectFunction } from './project-function';
import { StackPart } from './stack-part';

/** The Lambda function the room sweeper schedule runs every minute. */
export const sweeperEntry = 'lambdas/schedule/room-sweeper.ts';
/** The Lambda function that tops up the warm pools every minute. */
const poolKeeperEntry = 'lambdas/schedule/pool-keeper.ts';

/** How often EventBridge runs each scheduled function (the operations alarms watch for it). */
export const scheduleInterval = Duration.minutes(1);
/** Overlapping or skipped runs are harmless: the next minute's run is the retry. */
const noRetries = { retryAttempts: 0, maxEventAge: Duration.minutes(1) };

/** The functions EventBridge runs every minute: the room sweeper and the warm pools' keeper. */
export class PlatformSchedules extends StackPart {
  readonly sweeper: ProjectFunction;
  readonly sweepSchedule: events.Rule;
  /** Tops up the warm pools (lambdas/schedule/pool-keeper.ts): it starts standby servers. */
  readonly poolKeeper: ProjectFunction;

  constructor(scope: Construct, id: string, platform: PlatformResources) {
    super(scope, id);
    this.sweeper = this.newSweeper(platform);
    this.sweepSchedule = new events.Rule(this, 'RoomSweeperSchedule', {
      description: 'Runs the room sweeper',
      schedule: events.Schedule.rate(scheduleInterval),
      targets: [new targets.LambdaFunction(this.sweeper.function, noRetries)],
    });
    this.poolKeeper = this.newPoolKeeper(platform);
    new events.Rule(this, 'PoolKeeperSchedule', {
      description: 'Tops up the warm pools',
      schedule: events.Schedule.rate(scheduleInterval),
      targets: [new targets.LambdaFunction(this.poolKeeper.function, noRetries)],
    });
  }

  /**
   * Fails rooms whose server stopped reporting or never came up, and stops their tasks; a room
   * whose template migrates its host gets a replacement server instead (core/rooms/server-replacement.ts),
   * so the sweeper may start servers too. It
   * finds live rooms through the sweeper index (gsi3). Overlapping or skipped runs are harmless
   * (every change is a conditional write; reads judge timeouts lazily anyway). It alone may
   * Scan the table, for a release's one-time pass over older items (core/upgrade/table-upgrade.ts):
   * bans have no index to find them by.
   */
  private newSweeper(platform: PlatformResources): ProjectFunction {
    const sweeper = new ProjectFunction(this, 'RoomSweeper', {
      entry: sweeperEntry,
      description: 'Fails overdue rooms and stops their game server tasks (every minute)',
      timeout: Duration.seconds(50),
      logRetention: platform.logRetention,
    })
      .bindTable(platform.table, 'readWrite')
      // Heartbeats travel this queue: a backlog there means silence is the platform's, not a
      // room's (core/rooms/heartbeat-evidence.ts). The spawner also needs its URL to be built.
      .bindQueue(platform.queues.controllerRequests, 'observe')
      .bindReplyQueues(platform.replyQueuePrefix, 'name')
      .bindAuth(platform.auth);
    bindNeeds(sweeper, ['spawn'], platform);
    iam.Grant.addToPrincipal({
      grantee: sweeper.role,
      actions: ['dynamodb:Scan'],
      resourceArns: [platform.table.tableArn],
    });
    // Cost bounds: it also stops tasks and deletes reply queues whose room is not live.
    grantOrphanSweeps(sweeper, platform.fleet, platform.replyQueuePrefix);
    bindCostBounds(sweeper, platform.costBounds);
    // The sweeper tells a late run (a stalled platform) by its schedule.
    sweeper.function.addEnvironment('SWEEP_INTERVAL_S', String(scheduleInterval.toSeconds()));
    sweeper.function.configureAsyncInvoke(noRetries);
    return sweeper;
  }

  /**
   * The warm pools (docs/placement.md): starting standby servers is spawning, with the
   * spawners' grants, and a function of its own so a slow top-up never delays a sweep.
   */
  private newPoolKeeper(platform: PlatformResources): ProjectFunction {
    const poolKeeper = new ProjectFunction(this, 'PoolKeeper', {
      entry: poolKeeperEntry,
      description: 'Tops up the warm pools of standby game servers (every minute)',
      timeout: Duration.seconds(50),
      logRetention: platform.logRetention,
    })
      .bindTable(platform.table, 'readWrite')
      .bindAuth(platform.auth);
    bindNeeds(poolKeeper, ['spawn', 'signTokens'], platform);
    bindCostBounds(poolKeeper, platform.costBounds);
    poolKeeper.function.configureAsyncInvoke(noRetries);
    return poolKeeper;
  }
}
