import type { GameServerConfigurationBody } from './schema';

/** A stored game server configuration: one version of one game, and how to run it. */
export interface GameServerConfiguration extends GameServerConfigurationBody {
  /** Always set once stored: the body's, or the fleet's default (core/gameservers/fleet-fit.ts). */
  readonly spawnTimeoutS: number;
  /**
   * ECS: the task definition revision registered for this configuration's `image` and ports
   * (core/gameservers/ecs-task-definitions.ts). Absent: the deployment's task definition.
   */
  readonly taskDefinition?: string;
  /**
   * ECS: the deployment's task definition (ECS_TASK_DEFINITION) `taskDefinition` was derived
   * from, whose controller container it copies. Another one deployed since: the next spawn
   * registers the configuration anew (core/gameservers/template-revisions.ts).
   */
  readonly templateTaskDefinition?: string;
  readonly gameId: string;
  readonly version: string;
  readonly updatedAt: string;
}

/** Whether creates of this configuration look in a warm pool: `standby` above 0 (core/pool/warm-pool.ts). */
export function keepsWarmPool(configuration: Pick<GameServerConfiguration, 'standby'>): boolean {
  return (configuration.standby ?? 0) > 0;
}
