import {
  ClientException,
  DescribeTaskDefinitionCommand,
  ECSClient,
  RegisterTaskDefinitionCommand,
  RunTaskCommand,
  type TaskDefinition,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { RequestInvalidError } from '../../../../core/errors';
import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import { ecsTaskDefinitions } from '../../../../core/gameservers/ecs-task-definitions';
import { sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import { envelopeKeyFromSecret } from '../../../../core/gameservers/sidecar-envelope';

const ecsMock = mockClient(ECSClient);
beforeEach(() => ecsMock.reset());

const base = 'arn:aws:ecs:eu-west-1:1:task-definition/rk-game-server:7';
const executionRoleArn = 'arn:aws:iam::1:role/rk-execution';
const deployed: TaskDefinition = {
  taskDefinitionArn: base,
  family: 'rk-game-server',
  executionRoleArn,
  networkMode: 'awsvpc',
  requiresCompatibilities: ['FARGATE'],
  cpu: '512',
  memory: '1024',
  runtimePlatform: { cpuArchitecture: 'X86_64', operatingSystemFamily: 'LINUX' },
  volumes: [{ name: 'zmq' }],
  containerDefinitions: [
    {
      name: 'controller',
      image: '1.dkr.ecr.eu-west-1.amazonaws.com/cdk-assets:abc',
      essential: true,
      // The sidecar envelope key: a revision's controller must get it as the template's does.
      secrets: [
        { name: 'SIDECAR_ENVELOPE_KEY', valueFrom: 'arn:aws:secretsmanager:eu-west-1:1:secret:envelope-AbCdEf' },
      ],
    },
    {
      name: 'game',
      image: 'public.ecr.aws/deployment/game:1',
      essential: true,
      portMappings: [{ containerPort: 7777, protocol: 'udp' }],
      dependsOn: [{ containerName: 'controller', condition: 'START' }],
    },
  ],
  // What DescribeTaskDefinition answers but RegisterTaskDefinition does not take.
  revision: 7,
  status: 'ACTIVE',
};

const configuration: GameServerConfiguration = {
  gameId: 'arena',
  version: '2.0.0',
  updatedAt: '2026-01-01T00:00:00.000Z',
  image: 'public.ecr.aws/studio/arena:2.0.0',
  args: [],
  env: {},
  ports: 2,
  maxPlayers: 8,
  serverSettings: {},
  spawnTimeoutS: 120,
  reservationTimeoutS: 30,
  commands: [],
  serverScopes: [],
};

const register = ecsTaskDefinitions(new ECSClient({ region: 'eu-west-1' }), {
  baseTaskDefinition: base,
  gameContainer: 'game',
  firstGamePort: 7777,
});

describe('a task definition per configuration (ECS)', () => {
  it("registers the deployment's task definition with the configuration's image and ports, in the same family", async () => {
    ecsMock.on(DescribeTaskDefinitionCommand).resolves({ taskDefinition: deployed });
    ecsMock
      .on(RegisterTaskDefinitionCommand)
      .resolves({ taskDefinition: { taskDefinitionArn: 'arn:aws:ecs:eu-west-1:1:task-definition/rk-game-server:8' } });

    const prepared = await register(configuration);

    expect(prepared).toEqual({
      ...configuration,
      taskDefinition: 'arn:aws:ecs:eu-west-1:1:task-definition/rk-game-server:8',
      // The template it copies the controller of: a deploy that changes it is noticed at the next spawn.
      templateTaskDefinition: base,
    });
    expect(ecsMock.commandCalls(DescribeTaskDefinitionCommand).map((c) => c.args[0].input)).toEqual([
      { taskDefinition: base },
    ]);
    expect(ecsMock.commandCalls(RegisterTaskDefinitionCommand).map((c) => c.args[0].input)).toEqual([
      {
        family: 'rk-game-server',
        executionRoleArn,
        networkMode: 'awsvpc',
        requiresCompatibilities: ['FARGATE'],
        cpu: '512',
        memory: '1024',
        runtimePlatform: { cpuArchitecture: 'X86_64', operatingSystemFamily: 'LINUX' },
        volumes: [{ name: 'zmq' }],
        containerDefinitions: [
          deployed.containerDefinitions![0],
          {
            ...deployed.containerDefinitions![1],
            image: 'public.ecr.aws/studio/arena:2.0.0',
            portMappings: [
              { containerPort: 7777, protocol: 'udp' },
              { containerPort: 7777, protocol: 'tcp' },
              { containerPort: 7778, protocol: 'udp' },
              { containerPort: 7778, protocol: 'tcp' },
            ],
          },
        ],
      },
    ]);
  });

  it("a configuration without image runs the deployment's task definition: nothing registered", async () => {
    const { image: _image, ...binaryOnly } = configuration;
    const prepared = await register({
      ...binaryOnly,
      binary: '/game/server',
      taskDefinition: 'stale',
      templateTaskDefinition: base,
    });
    expect(prepared.taskDefinition).toBeUndefined();
    expect(prepared.templateTaskDefinition).toBeUndefined();
    expect(ecsMock.calls()).toHaveLength(0);
  });

  it('an image ECS refuses is a 400 naming body.image', async () => {
    ecsMock.on(DescribeTaskDefinitionCommand).resolves({ taskDefinition: deployed });
    ecsMock
      .on(RegisterTaskDefinitionCommand)
      .rejects(new ClientException({ message: 'Invalid image reference', $metadata: {} }));
    const attempt = register({ ...configuration, image: 'not a reference' });
    await expect(attempt).rejects.toThrow(RequestInvalidError);
    await expect(register({ ...configuration, image: 'not a reference' })).rejects.toThrow(/Invalid image reference/);
  });

  it("RunTask starts the configuration's revision", async () => {
    ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/c/t' }] });
    const spawner = new EcsSpawner(new ECSClient({ region: 'eu-west-1' }), {
      cluster: 'c',
      taskDefinition: base,
      subnets: ['subnet-a'],
      securityGroups: ['sg-1'],
      controllerContainer: 'controller',
      sidecar: { region: 'eu-west-1', controllerRequestQueueUrl: 'q', replyQueuePrefix: 'r-', discoveryServices: {} },
      sidecarKeys: (roomId) => Promise.resolve(sidecarKeys(Buffer.alloc(32, 1), roomId)),
      envelopeKey: () => Promise.resolve(envelopeKeyFromSecret('e'.repeat(64))),
    });
    const request = { roomId: 'room-1', region: 'eu-west-1', maxPlayers: 8, roomSettings: {}, loginAccessToken: 't' };
    await spawner.spawn({ ...request, configuration: { ...configuration, taskDefinition: 'arn:…:rk-game-server:8' } });
    await spawner.spawn({ ...request, roomId: 'room-2', configuration });
    expect(ecsMock.commandCalls(RunTaskCommand).map((c) => c.args[0].input.taskDefinition)).toEqual([
      'arn:…:rk-game-server:8',
      base,
    ]);
  });
});
