import {
  DescribeTasksCommand,
  ECSClient,
  ListTasksCommand,
  RunTaskCommand,
  StopTaskCommand,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import { NoHealthyHostError, SpawnFailedError } from '../../../../core/gameservers/errors';
import { sidecarEnvironmentSchema } from '../../../../core/gameservers/sidecar-environment';
import type { SpawnRequest } from '../../../../core/gameservers/spawner';
import { encodeRoomKey, sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import {
  envelopeKeyFromSecret,
  openSidecarVariables,
  sealedVariableNames,
} from '../../../../core/gameservers/sidecar-envelope';

const platformSecret = Buffer.alloc(32, 1);
/** Shaped as STS returns them, so that each encoding searched for below is a long, distinctive string. */
const scoped = {
  accessKeyId: 'ASIASCOPEDEXAMPLE0001',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYSCOPEDKEY1',
  sessionToken: `IQoJb3JpZ2luX2VjE${'Aa0+/Bb1'.repeat(60)}==`,
  expiration: '2026-01-01T01:00:00.000Z',
};
const envelopeKey = envelopeKeyFromSecret('k'.repeat(64));

const ecsMock = mockClient(ECSClient);

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
    args: ['--mode', 'ffa'],
    env: { LOG_LEVEL: 'info' },
    ports: 2,
    maxPlayers: 8,
    serverSettings: { tickRate: 30 },
    spawnTimeoutS: 10,
    reservationTimeoutS: 30,
    commands: ['kick'],
    serverScopes: [],
  },
};

function spawner(
  hostClusters: readonly string[] = [],
  sidecarCredentials: (roomId: string, epoch: number) => Promise<typeof scoped> = () => Promise.resolve(scoped),
) {
  return new EcsSpawner(new ECSClient({ region: 'eu-west-1' }), {
    cluster: 'games',
    hostClusters: () => Promise.resolve(hostClusters),
    taskDefinition: 'roomkeeper-game:3',
    subnets: ['subnet-a', 'subnet-b'],
    securityGroups: ['sg-1'],
    controllerContainer: 'controller',
    sidecar: {
      region: 'eu-west-1',
      controllerRequestQueueUrl: 'https://sqs/controller-requests.fifo',
      replyQueuePrefix: 'rk-reply-',
      discoveryServices: { api: 'https://api.example' },
    },
    sidecarKeys: (roomId) => Promise.resolve(sidecarKeys(platformSecret, roomId)),
    sidecarCredentials,
    envelopeKey: () => Promise.resolve(envelopeKey),
  });
}

beforeEach(() => ecsMock.reset());

describe('EcsSpawner', () => {
  it('runs one Fargate task per room, idempotent per room, with the sidecar environment as overrides', async () => {
    ecsMock.on(RunTaskCommand).resolves({
      tasks: [
        {
          taskArn: 'arn:aws:ecs:eu-west-1:1:task/games/abc',
          attachments: [{ details: [{ name: 'privateIPv4Address', value: '10.0.1.5' }] }],
        },
      ],
    });
    const placement = await spawner().spawn(request);
    // Never the private IP (no player reaches it): the public one is learnt at `inited`.
    expect(placement).toEqual({
      taskId: 'arn:aws:ecs:eu-west-1:1:task/games/abc',
      host: 'pending',
      ports: [7777, 7778],
    });

    const sent = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input;
    expect(sent).toMatchObject({
      cluster: 'games',
      taskDefinition: 'roomkeeper-game:3',
      launchType: 'FARGATE',
      count: 1,
      clientToken: 'room-1',
      networkConfiguration: { awsvpcConfiguration: { subnets: ['subnet-a', 'subnet-b'], securityGroups: ['sg-1'] } },
      tags: expect.arrayContaining([{ key: 'roomkeeper:room', value: 'room-1' }]),
    });
    const override = sent?.overrides?.containerOverrides?.[0];
    expect(override?.name).toBe('controller');
    const env = Object.fromEntries((override?.environment ?? []).map((e) => [e.name, e.value]));
    // The override is exactly what the sidecar parses at start.
    const parsed = sidecarEnvironmentSchema.parse(env);
    expect(parsed).toMatchObject({
      ROOM_ID: 'room-1',
      GAME_BINARY: '/game/arena',
      GAME_PORTS: '7777,7778',
      GAME_MAX_PLAYERS: 8,
      COMMAND_WHITELIST: ['kick'],
      SPAWN_TIMEOUT_S: 10,
      CONTROLLER_REQUEST_QUEUE_URL: 'https://sqs/controller-requests.fifo',
      GAME_LAUNCH: 'external',
      ZMQ_ENDPOINT: 'ipc:///zmq/game.sock',
      AWS_CREDENTIAL_EXPIRATION: '2026-01-01T01:00:00.000Z',
    });
    // The room's channel key and scoped session: sealed for this room, to the controller container only.
    for (const name of sealedVariableNames) expect(env).not.toHaveProperty(name);
    expect(openSidecarVariables(envelopeKey, 'room-1', env.SIDECAR_SEALED ?? '')).toEqual({
      SIDECAR_KEY: encodeRoomKey(sidecarKeys(platformSecret, 'room-1')),
      AWS_ACCESS_KEY_ID: scoped.accessKeyId,
      AWS_SECRET_ACCESS_KEY: scoped.secretAccessKey,
      AWS_SESSION_TOKEN: scoped.sessionToken,
    });

    // The game's launch variables go to the game container only (RunTask's 8,192 characters).
    for (const name of [
      'GAME_ARGS',
      'GAME_ENV',
      'ROOM_SETTINGS',
      'SERVER_SETTINGS',
      'DISCOVERY_SERVICES',
      'LOGIN_ACCESS_TOKEN',
    ]) {
      expect(env).not.toHaveProperty(name);
    }

    // ECS starts the game container exactly as the protocol says: nothing of the platform's.
    const game = sent?.overrides?.containerOverrides?.[1];
    expect(game?.name).toBe('game');
    expect(game?.command).toEqual(['/game/arena', 'ipc:///zmq/game.sock', '7777,7778', '--mode', 'ffa']);
    expect(Object.fromEntries((game?.environment ?? []).map((e) => [e.name, e.value]))).toEqual({
      LOG_LEVEL: 'info',
      room_id: 'room-1',
      login_access_token: 'server-token',
      discovery_services: '{"api":"https://api.example"}',
      game_max_players: '8',
      room_settings: '{"map":"harbor"}',
      server_settings: '{"tickRate":30}',
    });
  });

  it("starts a replacement server with its epoch, and its sidecar's session scoped to that epoch's queue", async () => {
    ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/games/abc' }] });
    const asked: Array<[string, number]> = [];
    await spawner([], async (roomId, epoch) => (asked.push([roomId, epoch]), scoped)).spawn({ ...request, epoch: 2 });
    await spawner([], async (roomId, epoch) => (asked.push([roomId, epoch]), scoped)).spawn(request);
    expect(asked).toEqual([
      ['room-1', 2],
      ['room-1', 1],
    ]);
    const env = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input.overrides?.containerOverrides?.[0]?.environment;
    expect(env).toContainEqual({ name: 'ROOM_EPOCH', value: '2' });
  });

  it('no part of the RunTask request holds the channel key, the STS secret key or the session token, in any encoding', async () => {
    ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/games/abc' }] });
    await spawner().spawn(request);
    // Everything ecs:DescribeTasks and CloudTrail could show: the whole request as sent.
    const sent = JSON.stringify(ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input);
    const roomKey = sidecarKeys(platformSecret, 'room-1').roomKey;
    const secrets = [roomKey, Buffer.from(scoped.secretAccessKey), Buffer.from(scoped.sessionToken)];
    for (const secret of secrets) {
      for (const encoding of ['utf8', 'latin1', 'base64', 'base64url', 'hex'] as const) {
        expect(sent).not.toContain(secret.toString(encoding));
      }
    }
  });

  it('refuses to spawn without an envelope key rather than send the secrets in clear', async () => {
    const bare = new EcsSpawner(new ECSClient({ region: 'eu-west-1' }), {
      cluster: 'games',
      taskDefinition: 'roomkeeper-game:3',
      subnets: ['subnet-a'],
      securityGroups: ['sg-1'],
      controllerContainer: 'controller',
      sidecar: { region: 'eu-west-1', controllerRequestQueueUrl: 'q', replyQueuePrefix: 'r-', discoveryServices: {} },
      sidecarKeys: (roomId) => Promise.resolve(sidecarKeys(platformSecret, roomId)),
    });
    await expect(bare.spawn(request)).rejects.toBeInstanceOf(SpawnFailedError);
    expect(ecsMock.commandCalls(RunTaskCommand)).toHaveLength(0);
  });

  it.each([
    ['a capacity failure as NoHealthyHostError', { failures: [{ reason: 'RESOURCE:MEMORY' }] }, NoHealthyHostError],
    ['any other failure as SpawnFailedError', { failures: [{ reason: 'MISSING' }] }, SpawnFailedError],
    ['an answer without a task as SpawnFailedError', { tasks: [] }, SpawnFailedError],
  ])('reports %s', async (_name, response, errorType) => {
    ecsMock.on(RunTaskCommand).resolves(response);
    await expect(spawner().spawn(request)).rejects.toBeInstanceOf(errorType);
  });

  it('reports an API error as SpawnFailedError', async () => {
    ecsMock.on(RunTaskCommand).rejects(new Error('AccessDenied'));
    await expect(spawner().spawn(request)).rejects.toBeInstanceOf(SpawnFailedError);
  });

  it('stops a task with the reason', async () => {
    ecsMock.on(StopTaskCommand).resolves({});
    await spawner().stop('arn:task', 'hung');
    expect(ecsMock.commandCalls(StopTaskCommand)[0]?.args[0].input).toEqual({
      cluster: 'games',
      task: 'arn:task',
      reason: 'hung',
    });
  });
});

describe('ECS placement into the chosen host', () => {
  beforeEach(() => {
    ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/games-b/abc' }] });
  });

  it('starts the task in the host cluster through its capacity provider, with no launch type', async () => {
    await spawner().spawn({
      ...request,
      host: { hostId: 'eu-b', ecs: { cluster: 'games-b', capacityProvider: 'spot' } },
    });
    const input = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input;
    expect(input?.cluster).toBe('games-b');
    expect(input?.capacityProviderStrategy).toEqual([{ capacityProvider: 'spot', weight: 1 }]);
    expect(input).not.toHaveProperty('launchType');
    expect(input?.clientToken).toBe(request.roomId);
  });

  it('starts the task on Fargate in the host cluster when the host names no capacity provider', async () => {
    await spawner().spawn({ ...request, host: { hostId: 'eu-c', ecs: { cluster: 'games-c' } } });
    const input = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input;
    expect(input?.cluster).toBe('games-c');
    expect(input?.launchType).toBe('FARGATE');
    expect(input).not.toHaveProperty('capacityProviderStrategy');
  });

  it("keeps the stack's cluster and Fargate without a host", async () => {
    await spawner().spawn(request);
    const input = ecsMock.commandCalls(RunTaskCommand)[0]?.args[0].input;
    expect(input?.cluster).toBe('games');
    expect(input?.launchType).toBe('FARGATE');
  });

  it('stops a task in the cluster its ARN names', async () => {
    ecsMock.on(StopTaskCommand).resolves({});
    await spawner().stop('arn:aws:ecs:eu-west-1:123456789012:task/games-b/0123abcd', 'closed');
    await spawner().stop('arn:aws:ecs:eu-west-1:123456789012:task/0123abcd', 'closed');
    const clusters = ecsMock.commandCalls(StopTaskCommand).map((call) => call.args[0].input.cluster);
    expect(clusters).toEqual(['games-b', 'games']);
  });

  it("lists the room tasks of the stack's cluster and of every host cluster, once each", async () => {
    ecsMock.on(ListTasksCommand).callsFake((input: { cluster: string }) => ({
      taskArns: [`arn:aws:ecs:eu-west-1:1:task/${input.cluster}/t1`],
    }));
    ecsMock.on(DescribeTasksCommand).callsFake((input: { tasks: string[] }) => ({
      tasks: input.tasks.map((taskArn) => ({ taskArn, tags: [{ key: 'roomkeeper:room', value: taskArn }] })),
    }));
    const servers = await spawner(['games-b', 'games', 'games-c']).listServers();
    expect(servers.map((s) => s.taskId).sort()).toEqual([
      'arn:aws:ecs:eu-west-1:1:task/games-b/t1',
      'arn:aws:ecs:eu-west-1:1:task/games-c/t1',
      'arn:aws:ecs:eu-west-1:1:task/games/t1',
    ]);
  });
});
