import { RequestInvalidError } from '../errors';
import type { GameServerConfiguration } from './configuration';
import type { GameServerConfigurationBody } from './schema';

/**
 * What this deployment's fleet can run: the deployed ECS fleet opens `maxPorts` game ports in
 * its security group (`FLEET_GAME_PORTS`); a Fargate start takes far longer than a local
 * process, so configurations that name no `spawnTimeoutS` get the fleet's default
 * (docs/ecs-fleet.md "Spawn times").
 */
export interface FleetLimits {
  readonly maxPorts: number;
  readonly defaultSpawnTimeoutS: number;
  /**
   * Deployed on ECS: the private ECR repositories (`<account>.dkr.ecr.<region>.amazonaws.com/<name>`)
   * the tasks' execution role may pull from; public images need no grant. Absent: no check
   * (the local fleet runs binaries).
   */
  readonly ecrRepositories?: readonly string[];
}

/** `<account>.dkr.ecr.<region>.amazonaws.com[.cn]/<name>`, the repository of a private ECR image. */
export function ecrRepositoryOf(image: string): string | undefined {
  return /^(\d{12}\.dkr\.ecr\.[a-z0-9-]+\.amazonaws\.com(?:\.cn)?\/[a-z0-9._/-]+?)(?::[\w][\w.-]{0,127}|@sha256:[a-f0-9]{64})?$/.exec(
    image,
  )?.[1];
}

/** A configuration as PUT, before the fleet fills its defaults. */
export type ConfigurationRequest = Omit<GameServerConfigurationBody, 'spawnTimeoutS'> & {
  readonly spawnTimeoutS?: number;
};

/**
 * The stored configuration of a PUT (admin API or the local cloud's file), or a 400 naming the
 * fleet's limit: a configuration the fleet cannot serve is refused when it is put, never when
 * a player's room fails to start.
 */
export function configurationForFleet(
  body: ConfigurationRequest,
  identity: { readonly gameId: string; readonly version: string; readonly updatedAt: string },
  fleet: FleetLimits,
): GameServerConfiguration {
  if (body.ports > fleet.maxPorts) {
    throw new RequestInvalidError(
      `This deployment's game servers can use at most ${fleet.maxPorts} ports (the fleet's security group opens ` +
        `${fleet.maxPorts}); the configuration asks for ${body.ports}.`,
      [{ field: 'body.ports', message: `must be at most ${fleet.maxPorts} on this fleet` }],
    );
  }
  const repository = body.image === undefined ? undefined : ecrRepositoryOf(body.image);
  if (repository && fleet.ecrRepositories && !fleet.ecrRepositories.includes(repository)) {
    const allowed = fleet.ecrRepositories.length > 0 ? fleet.ecrRepositories.join(', ') : 'none';
    throw new RequestInvalidError(
      `This deployment's game server tasks can pull public images and these private ECR repositories: ${allowed}; ` +
        `${repository} is not one of them, so its tasks could never start.`,
      [{ field: 'body.image', message: 'must be a public image or in a repository the fleet may pull from' }],
    );
  }
  return { ...body, spawnTimeoutS: body.spawnTimeoutS ?? fleet.defaultSpawnTimeoutS, ...identity };
}
