import { RunTaskCommand, StopTaskCommand, type ECSClient, type KeyValuePair } from '@aws-sdk/client-ecs';
import type { SidecarCredentials } from '../protocol/controller-messages';
import { encodeRoomKey, type SidecarKeys } from '../protocol/sidecar-channel';
import { NoHealthyHostError, SpawnFailedError } from './errors';
import {
  gameCommandLine,
  gameProcessEnvironment,
  sidecarEnvironment,
  type SidecarPlatformSettings,
} from './sidecar-launch';
import { launchOnlyVariables } from './task-overrides';
import { sealSidecarVariables, type EnvelopeKey } from './sidecar-envelope';
import { clusterOfTask, listRoomTasks } from './ecs-fleet-listing';
import type { Placement } from './game-server';
import type { RunningServer, SpawnRequest, Spawner } from './spawner';
import { unknownHost } from './server-address';

export interface EcsSpawnerSettings {
  readonly cluster: string;
  /** The clusters of the fleet's ECS hosts, whose tasks the sweeper lists too. */
  readonly hostClusters?: () => Promise<readonly string[]>;
  readonly taskDefinition: string;
  readonly subnets: readonly string[];
  readonly securityGroups: readonly string[];
  readonly controllerContainer: string;
  /** The container that runs the game server image. */
  readonly gameContainer?: string;
  /** The game's ports inside the task; awsvpc gives every task its own address, so they never collide. */
  readonly firstGamePort?: number;
  readonly sidecar: SidecarPlatformSettings;
  /** The room's channel keys: K_room goes to the controller container only. */
  readonly sidecarKeys: (roomId: string) => Promise<SidecarKeys>;
  /**
   * Scoped AWS credentials for the controller container (the task has no role: its
   * credentials would reach the game container too). Absent in tests that need none.
   */
  readonly sidecarCredentials?: (roomId: string, epoch: number) => Promise<SidecarCredentials>;
  /**
   * The deployment's sidecar envelope key (core/gameservers/sidecar-envelope.ts): the secrets
   * above travel sealed under it, never in clear: without it `spawn` fails. Stopping and
   * listing tasks need no secret.
   */
  readonly envelopeKey?: () => Promise<EnvelopeKey>;
}

/** The game container's name and first port when the settings name none (the fleet's contract). */
export const ecsTaskDefaults = { gameContainer: 'game', firstGamePort: 7777 } as const;

/** Where the controller binds and the game connects, on the task volume both containers mount. */
export const taskSocketEndpoint = 'ipc:///zmq/game.sock';

/**
 * Spawner for AWS: one Fargate task per room with two essential containers, the controller
 * sidecar and the game server image. ECS starts the game with the protocol's command line
 * and environment (container overrides); the sidecar binds the socket on the shared volume,
 * supervises the game over it, and ends the whole task by exiting. `clientToken` makes a
 * retried spawn start one task, not two.
 */
export class EcsSpawner implements Spawner {
  constructor(
    private readonly ecs: ECSClient,
    private readonly settings: EcsSpawnerSettings,
  ) {}

  async spawn(request: SpawnRequest): Promise<Placement> {
    const first = this.settings.firstGamePort ?? ecsTaskDefaults.firstGamePort;
    const ports = Array.from({ length: request.configuration.ports }, (_, i) => first + i);
    const binary = request.configuration.binary ?? '/game/server';
    const environment = await this.controllerEnvironment(request, ports, binary);
    const gameEnvironment = pairs(
      gameProcessEnvironment({
        roomId: request.roomId,
        loginAccessToken: request.loginAccessToken,
        discoveryServices: this.settings.sidecar.discoveryServices,
        maxPlayers: request.maxPlayers,
        roomSettings: request.roomSettings,
        serverSettings: request.configuration.serverSettings,
        configured: request.configuration.env,
        standby: request.standby,
      }),
    );
    let response;
    try {
      response = await this.ecs.send(
        new RunTaskCommand({
          // The cluster (and capacity provider) of the host placement chose; the stack's own without hosts.
          cluster: request.host?.ecs?.cluster ?? this.settings.cluster,
          // The configuration's own revision (its image and ports) when it has one.
          taskDefinition: request.configuration.taskDefinition ?? this.settings.taskDefinition,
          // A capacity provider strategy and a launch type exclude each other.
          ...(request.host?.ecs?.capacityProvider
            ? { capacityProviderStrategy: [{ capacityProvider: request.host.ecs.capacityProvider, weight: 1 }] }
            : { launchType: 'FARGATE' as const }),
          count: 1,
          clientToken: request.roomId,
          startedBy: `roomkeeper`,
          networkConfiguration: {
            awsvpcConfiguration: {
              subnets: [...this.settings.subnets],
              securityGroups: [...this.settings.securityGroups],
              assignPublicIp: 'ENABLED',
            },
          },
          overrides: {
            containerOverrides: [
              { name: this.settings.controllerContainer, environment },
              {
                name: this.settings.gameContainer ?? ecsTaskDefaults.gameContainer,
                command: gameCommandLine(binary, taskSocketEndpoint, ports, request.configuration.args),
                environment: gameEnvironment,
              },
            ],
          },
          tags: [
            { key: 'roomkeeper:room', value: request.roomId },
            { key: 'roomkeeper:game', value: `${request.configuration.gameId}@${request.configuration.version}` },
          ],
        }),
      );
    } catch (error) {
      throw new SpawnFailedError('ECS refused to start the game server task.', { cause: error });
    }
    const failure = response.failures?.[0];
    if (failure || !response.tasks?.[0]?.taskArn) {
      const reason = failure?.reason ?? 'no task returned';
      // Capacity shortages come back as RESOURCE:* failures: that is "no host", not a broken game.
      if (reason.startsWith('RESOURCE'))
        throw new NoHealthyHostError(`No capacity for a game server task (${reason}).`);
      throw new SpawnFailedError(`ECS could not start the game server task (${reason}).`);
    }
    // The public IP is not known yet (the ENI is attached while the task provisions), and the
    // private one reaches no player: the address is learnt at `inited` (ecs-task-address.ts).
    return { taskId: response.tasks[0].taskArn ?? '', host: unknownHost, ports };
  }

  /**
   * The controller container's variables: the sidecar's settings in clear, and its secrets
   * (channel key, room-scoped session) sealed into SIDECAR_SEALED for this room: RunTask's
   * overrides are readable through ecs:DescribeTasks and CloudTrail. The game container is a
   * separate container (its own PID namespace and environment): nothing here reaches it.
   */
  private async controllerEnvironment(
    request: SpawnRequest,
    ports: readonly number[],
    binary: string,
  ): Promise<KeyValuePair[]> {
    const { envelopeKey: readEnvelopeKey } = this.settings;
    if (!readEnvelopeKey) throw new SpawnFailedError("No sidecar envelope key to seal the sidecar's secrets under.");
    const [keys, credentials, envelopeKey] = await Promise.all([
      this.settings.sidecarKeys(request.roomId),
      this.settings.sidecarCredentials?.(request.roomId, request.epoch ?? 1),
      readEnvelopeKey(),
    ]);
    const sealed = sealSidecarVariables(envelopeKey, request.roomId, {
      SIDECAR_KEY: encodeRoomKey(keys),
      ...(credentials
        ? {
            AWS_ACCESS_KEY_ID: credentials.accessKeyId,
            AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
            AWS_SESSION_TOKEN: credentials.sessionToken,
          }
        : {}),
    });
    return pairs({
      ...sidecarEnvironment(request, ports, binary, this.settings.sidecar),
      // Read only by a sidecar that launches the game itself; here they would only fill RunTask's 8,192 characters.
      ...launchOnlyVariables,
      GAME_LAUNCH: 'external',
      ZMQ_ENDPOINT: taskSocketEndpoint,
      SIDECAR_SEALED: sealed,
      // When the session ends is no secret; the sidecar plans its renewal by it.
      AWS_CREDENTIAL_EXPIRATION: credentials?.expiration,
    });
  }

  /** Cost bounds: the sweeper stops tasks whose room is not live (core/rooms/sweep-costs.ts). */
  async listServers(): Promise<RunningServer[]> {
    const clusters = new Set([this.settings.cluster, ...((await this.settings.hostClusters?.()) ?? [])]);
    return (await Promise.all([...clusters].map((cluster) => listRoomTasks(this.ecs, cluster)))).flat();
  }

  async stop(taskId: string, reason: string): Promise<void> {
    try {
      await this.ecs.send(
        new StopTaskCommand({
          cluster: clusterOfTask(taskId, this.settings.cluster),
          task: taskId,
          reason: reason.slice(0, 255),
        }),
      );
    } catch (error) {
      // A task that already ended cannot be stopped again; that is the outcome we wanted.
      if ((error as Error).name === 'InvalidParameterException') return;
      throw error;
    }
  }
}

function pairs(values: Record<string, string | undefined>): KeyValuePair[] {
  return Object.entries(values)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => ({ name, value }));
}
