import {
  ClientException,
  DescribeTaskDefinitionCommand,
  InvalidParameterException,
  RegisterTaskDefinitionCommand,
  TransportProtocol,
  type ContainerDefinition,
  type ECSClient,
} from '@aws-sdk/client-ecs';
import { RequestInvalidError } from '../errors';
import type { GameServerConfiguration } from './configuration';

export interface EcsTaskDefinitionSettings {
  /** The deployment's task definition (controller + the stack's game image): the template of every revision. */
  readonly baseTaskDefinition: string;
  readonly gameContainer: string;
  readonly firstGamePort: number;
}

/**
 * A configuration with its own `image` gets its own task definition revision, registered when
 * the configuration is put: the deployment's task definition (the template) with the game
 * container's image and port mappings replaced. Same family, so the spawner's RunTask grant
 * (the family's revisions, in this cluster) covers it, and the execution role stays the one
 * the stack made. A configuration without `image` runs the deployment's game image, in the
 * deployment's task definition.
 *
 * The revision copies the template's controller container, so it records the template it was
 * derived from (`templateTaskDefinition`): once a deploy changes the template, the next spawn
 * registers the configuration anew (core/gameservers/template-revisions.ts).
 */
export function ecsTaskDefinitions(
  ecs: ECSClient,
  settings: EcsTaskDefinitionSettings,
): (configuration: GameServerConfiguration) => Promise<GameServerConfiguration> {
  return async (configuration) => {
    if (!configuration.image) return withoutTaskDefinition(configuration);
    const { taskDefinition: base } = await ecs.send(
      new DescribeTaskDefinitionCommand({ taskDefinition: settings.baseTaskDefinition }),
    );
    if (!base?.family || !base.containerDefinitions?.some((c) => c.name === settings.gameContainer)) {
      throw new Error(
        `The fleet's task definition ${settings.baseTaskDefinition} has no ${settings.gameContainer} container.`,
      );
    }
    const ports = Array.from({ length: configuration.ports }, (_, i) => settings.firstGamePort + i);
    const containerDefinitions = base.containerDefinitions.map((container): ContainerDefinition =>
      container.name === settings.gameContainer
        ? {
            ...container,
            image: configuration.image,
            // awsvpc: these document the ports; the fleet's security group is what opens them.
            portMappings: ports.flatMap((port) => [
              { containerPort: port, protocol: TransportProtocol.UDP },
              { containerPort: port, protocol: TransportProtocol.TCP },
            ]),
          }
        : container,
    );
    let registered;
    try {
      registered = await ecs.send(
        new RegisterTaskDefinitionCommand({
          family: base.family,
          executionRoleArn: base.executionRoleArn,
          networkMode: base.networkMode,
          requiresCompatibilities: base.requiresCompatibilities,
          cpu: base.cpu,
          memory: base.memory,
          runtimePlatform: base.runtimePlatform,
          volumes: base.volumes,
          ...(base.ephemeralStorage ? { ephemeralStorage: base.ephemeralStorage } : {}),
          containerDefinitions,
        }),
      );
    } catch (error) {
      // ECS refuses what it cannot run (an image reference it cannot parse): the admin's mistake.
      if (error instanceof ClientException || error instanceof InvalidParameterException) {
        throw new RequestInvalidError(`ECS refused a task definition for this configuration: ${error.message}`, [
          { field: 'body.image', message: 'ECS could not register a task definition with this image' },
        ]);
      }
      throw error;
    }
    const arn = registered.taskDefinition?.taskDefinitionArn;
    if (!arn) throw new Error('RegisterTaskDefinition returned no task definition.');
    return { ...configuration, taskDefinition: arn, templateTaskDefinition: settings.baseTaskDefinition };
  };
}

function withoutTaskDefinition(configuration: GameServerConfiguration): GameServerConfiguration {
  const { taskDefinition: _earlier, templateTaskDefinition: _template, ...rest } = configuration;
  return rest;
}
