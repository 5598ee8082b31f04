import {
  DescribeTaskDefinitionCommand,
  ECSClient,
  RegisterTaskDefinitionCommand,
  RunTaskCommand,
  type TaskDefinition,
} from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { EcsSpawner } from '../../../../core/gameservers/ecs-spawner';
import { ecsTaskDefinitions } from '../../../../core/gameservers/ecs-task-definitions';
import { envelopeKeyFromSecret } from '../../../../core/gameservers/sidecar-envelope';
import { TemplateFollowingSpawner } from '../../../../core/gameservers/template-revisions';
import { PlatformCache } from '../../../../core/infra/platform-cache';
import { sidecarKeys } from '../../../../core/protocol/sidecar-channel';
import { aConfiguration } from '../../../helpers/contracts/game-configurations';
import { InMemoryGameConfigurations } from '../../../helpers/fakes/game-configurations';

/**
 * A deploy with a new controller image registers template revision 4; a configuration whose
 * own revision was derived from revision 3 must not start the old controller.
 */
const ecsMock = mockClient(ECSClient);
const family = 'arn:aws:ecs:eu-west-1:1:task-definition/rk-game-server';
const rev3 = `${family}:3`;
const rev4 = `${family}:4`;
const newController = '1.dkr.ecr.eu-west-1.amazonaws.com/cdk-assets:controller-v2';

const template4: TaskDefinition = {
  taskDefinitionArn: rev4,
  family: 'rk-game-server',
  executionRoleArn: 'arn:aws:iam::1:role/rk-execution',
  networkMode: 'awsvpc',
  requiresCompatibilities: ['FARGATE'],
  cpu: '512',
  memory: '1024',
  volumes: [{ name: 'zmq' }],
  containerDefinitions: [
    { name: 'controller', image: newController, essential: true },
    { name: 'game', image: 'public.ecr.aws/deployment/game:1', essential: true },
  ],
};

/** Registered from revision 3 when it was put: its controller is the old one. */
const derivedFrom3: GameServerConfiguration = aConfiguration({
  image: 'public.ecr.aws/studio/arena:2.0.0',
  ports: 2,
  spawnTimeoutS: 120,
  taskDefinition: `${family}:5`,
  templateTaskDefinition: rev3,
});

let configurations: InMemoryGameConfigurations;
let spawner: TemplateFollowingSpawner;

beforeEach(async () => {
  ecsMock.reset();
  ecsMock.on(DescribeTaskDefinitionCommand).resolves({ taskDefinition: template4 });
  ecsMock.on(RegisterTaskDefinitionCommand).resolves({ taskDefinition: { taskDefinitionArn: `${family}:9` } });
  ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/c/t' }] });
  configurations = new InMemoryGameConfigurations();
  await configurations.put(derivedFrom3);
  const ecs = new ECSClient({ region: 'eu-west-1' });
  spawner = new TemplateFollowingSpawner(
    new EcsSpawner(ecs, {
      cluster: 'c',
      taskDefinition: rev4,
      subnets: ['subnet-a'],
      securityGroups: ['sg-1'],
      controllerContainer: 'controller',
      sidecar: { region: 'eu-west-1', controllerRequestQueueUrl: 'q', replyQueuePrefix: 'r-', discoveryServices: {} },
      sidecarKeys: (roomId) => Promise.resolve(sidecarKeys(Buffer.alloc(32, 1), roomId)),
      envelopeKey: () => Promise.resolve(envelopeKeyFromSecret('e'.repeat(64))),
    }),
    {
      template: rev4,
      register: ecsTaskDefinitions(ecs, { baseTaskDefinition: rev4, gameContainer: 'game', firstGamePort: 7777 }),
      configurations,
      cache: new PlatformCache(),
    },
  );
});

function spawn(roomId: string, configuration: GameServerConfiguration) {
  return spawner.spawn({
    roomId,
    region: 'eu-west-1',
    maxPlayers: 8,
    roomSettings: {},
    loginAccessToken: 't',
    configuration,
  });
}

describe("a configuration's revision after a deploy changed the template", () => {
  it('registers the configuration from the deployed template (its new controller), records it, and starts from it', async () => {
    await spawn('room-1', derivedFrom3);

    expect(ecsMock.commandCalls(DescribeTaskDefinitionCommand).map((c) => c.args[0].input)).toEqual([
      { taskDefinition: rev4 },
    ]);
    const registered = ecsMock.commandCalls(RegisterTaskDefinitionCommand).map((c) => c.args[0].input);
    expect(registered).toHaveLength(1);
    expect(registered[0]).toMatchObject({ family: 'rk-game-server', executionRoleArn: template4.executionRoleArn });
    expect(registered[0]!.containerDefinitions).toEqual([
      { name: 'controller', image: newController, essential: true },
      expect.objectContaining({ name: 'game', image: 'public.ecr.aws/studio/arena:2.0.0' }),
    ]);
    expect(ecsMock.commandCalls(RunTaskCommand).map((c) => c.args[0].input.taskDefinition)).toEqual([`${family}:9`]);
    await expect(configurations.get(derivedFrom3.gameId, derivedFrom3.version)).resolves.toEqual({
      ...derivedFrom3,
      taskDefinition: `${family}:9`,
      templateTaskDefinition: rev4,
    });
  });

  it('registers once: a later spawn from the same stale read, and one from the recorded revision, only run tasks', async () => {
    await spawn('room-1', derivedFrom3);
    await spawn('room-2', derivedFrom3);
    await spawn('room-3', await configurations.get(derivedFrom3.gameId, derivedFrom3.version));
    expect(ecsMock.commandCalls(RegisterTaskDefinitionCommand)).toHaveLength(1);
    expect(ecsMock.commandCalls(RunTaskCommand).map((c) => c.args[0].input.taskDefinition)).toEqual([
      `${family}:9`,
      `${family}:9`,
      `${family}:9`,
    ]);
  });
});

describe('a configuration derived from the deployed template', () => {
  it('starts its own revision with no other ECS call', async () => {
    const current = { ...derivedFrom3, templateTaskDefinition: rev4 };
    await spawn('room-1', current);
    expect(ecsMock.calls().map((call) => call.args[0].constructor.name)).toEqual(['RunTaskCommand']);
    expect(ecsMock.commandCalls(RunTaskCommand)[0]!.args[0].input.taskDefinition).toBe(`${family}:5`);
  });

  it('a configuration without its own image starts the deployed template itself', async () => {
    const { image: _image, taskDefinition: _revision, templateTaskDefinition: _template, ...binaryOnly } = derivedFrom3;
    await spawn('room-1', { ...binaryOnly, binary: '/game/server' });
    expect(ecsMock.calls().map((call) => call.args[0].constructor.name)).toEqual(['RunTaskCommand']);
    expect(ecsMock.commandCalls(RunTaskCommand)[0]!.args[0].input.taskDefinition).toBe(rev4);
  });
});
