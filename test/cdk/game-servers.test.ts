import * as fs from 'node:fs';
import * as path from 'node:path';
import { ECSClient, RunTaskCommand, type RunTaskCommandInput } from '@aws-sdk/client-ecs';
import type { App } from 'aws-cdk-lib';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { mockClient } from 'aws-sdk-client-mock';
import {
  controllerDockerfile,
  ecsSpawnTiming,
  fleetContract,
  taskStopTimeouts,
} from '../../cdk/lib/constructs/game-server-fleet';
import type { ProjectFunction } from '../../cdk/lib/constructs/project-function';
import { addRoomkeeper, gameImagePlaceholder } from '../../cdk/lib/roomkeeper-app';
import { sweeperEntry } from '../../cdk/lib/constructs/platform-schedules';
import { deployableRoutes } from '../../cdk/lib/constructs/player-api';
import { replyQueuePrefix, type RoomkeeperStack } from '../../cdk/lib/roomkeeper-stack';
import type { FunctionNeed } from '../../core/infra/function-needs';
import type { GameServerConfiguration } from '../../core/gameservers/configuration';
import { EcsSpawner, taskSocketEndpoint } from '../../core/gameservers/ecs-spawner';
import { gameServerConfigurationBodySchema } from '../../core/gameservers/schema';
import { sidecarEnvironmentSchema } from '../../core/gameservers/sidecar-environment';
import { envelopeKeyFromSecret } from '../../core/gameservers/sidecar-envelope';
import { parseConfig, type PlatformConfig } from '../../core/infra/config';
import { qualifiedQueueName, queueDefinitions } from '../../core/infra/queues';
import { sidecarKeys } from '../../core/protocol/sidecar-channel';
import {
  auth,
  identityStatements,
  asArray,
  logicalId,
  render,
  renderedEnvironment,
  roleStatements,
  statementsOf,
  useScratch,
  type Json,
  type Statement,
} from './support';

const { newApp, cleanUp } = useScratch();
const defaultPorts = 4;

let stack: RoomkeeperStack;
let template: Template;
let resources: Json;
let synthesisWarnings: string;

beforeAll(() => {
  stack = addRoomkeeper(newApp({ stage: 'fleet', ...auth }));
  // No gameImage in the context: synthesis warns about the placeholder on stderr (asserted below).
  const stderr = jest.spyOn(console, 'error').mockImplementation(() => undefined);
  try {
    template = Template.fromStack(stack);
    synthesisWarnings = stderr.mock.calls.flat().join('\n');
  } finally {
    stderr.mockRestore();
  }
  resources = template.toJSON().Resources as Json;
});

afterAll(cleanUp);

function only(type: string, props?: Json): [string, Json] {
  const found = Object.entries(template.findResources(type, props));
  expect(found).toHaveLength(1);
  return found[0]!;
}

const idOf = (construct: { node: { defaultChild?: unknown } }) =>
  stack.getLogicalId(construct.node.defaultChild as never);
const createRoom = () => stack.routeFunctions.get('createRoom')!;
/** Route functions by a need they declare (test/cdk/function-needs.test.ts derives the needs from the code). */
const routesNeeding = (need: FunctionNeed) =>
  deployableRoutes()
    .filter((route) => route.needs?.includes(need))
    .map((route) => stack.routeFunctions.get(route.id)!);
/** The functions that start game servers: the room-creating routes and the pool keeper. */
/** Every function that starts game server tasks: creates, the pool keeper, and the two that start replacement servers. */
const spawningFunctions = () => [
  ...routesNeeding('spawn'),
  stack.poolKeeper,
  stack.sweeper,
  stack.consumers.controllerRequests,
];
const createRoomConfig = (): PlatformConfig =>
  parseConfig(renderedEnvironment(template, logicalId(stack, createRoom())));
const taskDefinition = () => only('AWS::ECS::TaskDefinition')[1].Properties as Json;
const containers = () => taskDefinition().ContainerDefinitions as Json[];
const container = (name: string) => containers().find((c) => c.Name === name)!;
const pseudo = (service: string, resource: string) =>
  `arn:\${AWS::Partition}:${service}:\${AWS::Region}:\${AWS::AccountId}:${resource}`;
const withAction = (statements: Statement[], action: string) => statements.filter((s) => s.actions.includes(action));

/** Every 0.0.0.0/0 or ::/0 ingress rule, inline or standalone, with the security group it opens. */
function openIngress(): { group: string; protocol: string; from: number; to: number }[] {
  const rules: [string, Json][] = [];
  for (const [id, group] of Object.entries(template.findResources('AWS::EC2::SecurityGroup'))) {
    for (const rule of (group.Properties.SecurityGroupIngress ?? []) as Json[]) rules.push([id, rule]);
  }
  for (const rule of Object.values(template.findResources('AWS::EC2::SecurityGroupIngress'))) {
    rules.push([render(rule.Properties.GroupId), rule.Properties]);
  }
  return rules
    .filter(([, rule]) => rule.CidrIp === '0.0.0.0/0' || rule.CidrIpv6 === '::/0')
    .map(([group, rule]) => ({ group, protocol: rule.IpProtocol, from: rule.FromPort, to: rule.ToPort }));
}

/** The order ECS stops containers in: each once every container that depends on it has stopped. */
function stopOrder(definitions: Json[]): string[] {
  const dependents = (name: string) =>
    definitions.filter((c) => ((c.DependsOn ?? []) as Json[]).some((d) => d.ContainerName === name));
  const stopped: string[] = [];
  while (stopped.length < definitions.length) {
    const next = definitions.find(
      (c) => !stopped.includes(c.Name) && dependents(c.Name).every((d) => stopped.includes(d.Name)),
    );
    if (!next) throw new Error('The container dependencies form a cycle.');
    stopped.push(next.Name);
  }
  return stopped;
}

describe('game server task definition', () => {
  it('Fargate, awsvpc, with exactly the controller and the game container, both essential', () => {
    const props = taskDefinition();
    expect(props.RequiresCompatibilities).toEqual(['FARGATE']);
    expect(props.NetworkMode).toBe('awsvpc');
    expect(
      containers()
        .map((c) => c.Name)
        .sort(),
    ).toEqual([fleetContract.controllerContainer, fleetContract.gameContainer].sort());
    for (const c of containers()) expect(c.Essential).toBe(true);
  });

  it('the controller image is the containers/controller asset, for the task platform; the game image is the placeholder', () => {
    // An asset image lives in the bootstrap container-assets repository.
    expect(JSON.stringify(container(fleetContract.controllerContainer).Image)).toMatch(/container-assets/);
    const manifest = JSON.parse(
      fs.readFileSync(path.join((stack.node.root as App).outdir, `${stack.artifactId}.assets.json`), 'utf8'),
    );
    const images = Object.values(manifest.dockerImages ?? {}) as Json[];
    expect(images).toHaveLength(1);
    expect(images[0]!.source).toMatchObject({ dockerFile: controllerDockerfile, platform: 'linux/amd64' });
    expect(taskDefinition().RuntimePlatform).toEqual({ CpuArchitecture: 'X86_64', OperatingSystemFamily: 'LINUX' });
    // The staged context is what Dockerfile.dockerignore lets through: no node_modules, no cdk/.
    const staged = path.join((stack.node.root as App).outdir, images[0]!.source.directory as string);
    expect(fs.readdirSync(staged).sort()).toEqual([
      'containers',
      'core',
      'package-lock.json',
      'package.json',
      'tsconfig.json',
    ]);
    expect(container(fleetContract.gameContainer).Image).toBe(gameImagePlaceholder);
    expect(synthesisWarnings).toMatch(/No gameImage in the CDK context/);
  });

  it('both containers mount one task volume at the directory of the spawner socket', () => {
    const volumes = taskDefinition().Volumes as Json[];
    expect(volumes).toEqual([{ Name: fleetContract.socketVolume.name }]);
    for (const c of containers()) {
      expect(c.MountPoints).toEqual([
        {
          SourceVolume: fleetContract.socketVolume.name,
          ContainerPath: fleetContract.socketVolume.containerPath,
          ReadOnly: false,
        },
      ]);
    }
    expect(taskSocketEndpoint.startsWith(`ipc://${fleetContract.socketVolume.containerPath}/`)).toBe(true);
  });

  it('the controller starts after the game, so on StopTask ECS stops the controller first and the game last', () => {
    expect(container(fleetContract.controllerContainer).DependsOn).toEqual([
      { ContainerName: fleetContract.gameContainer, Condition: 'START' },
    ]);
    expect(container(fleetContract.gameContainer).DependsOn).toBeUndefined();
    // ECS reverses dependencies at shutdown: a container stops only once every container that
    // depends on it has stopped. The controller must go first, or the game never gets `shutdown`.
    expect(stopOrder(containers())).toEqual([fleetContract.controllerContainer, fleetContract.gameContainer]);
  });

  it('each container has the time its stop takes, within the Fargate maximum of 120 s', () => {
    const stopTimeout = (name: string) => container(name).StopTimeout as number;
    expect(stopTimeout(fleetContract.controllerContainer)).toBe(taskStopTimeouts.controllerS);
    expect(stopTimeout(fleetContract.gameContainer)).toBe(taskStopTimeouts.gameS);
    // The controller's stop: the notice (1 s send), the game's KILL_GRACE_S, the `exited`
    // report and the reply queues' deletion (5 s each).
    const killGraceS = sidecarEnvironmentSchema.shape.KILL_GRACE_S.parse(undefined);
    expect(stopTimeout(fleetContract.controllerContainer)).toBeGreaterThanOrEqual(1 + killGraceS + 5 + 5);
    for (const c of containers()) expect(c.StopTimeout).toBeLessThanOrEqual(120);
  });

  it('the game maps the game ports (UDP and TCP) from 7777', () => {
    const game = container(fleetContract.gameContainer);
    const ports = Array.from({ length: defaultPorts }, (_, i) => fleetContract.firstGamePort + i);
    expect(game.PortMappings).toEqual(
      ports.flatMap((port) => [
        { ContainerPort: port, Protocol: 'udp' },
        { ContainerPort: port, Protocol: 'tcp' },
      ]),
    );
    expect(container(fleetContract.controllerContainer).PortMappings).toBeUndefined();
  });

  it('both containers log to CloudWatch (awslogs, non-blocking) in a log group with retention; no static environment', () => {
    for (const c of containers()) {
      expect(c.LogConfiguration.LogDriver).toBe('awslogs');
      expect(c.LogConfiguration.Options).toMatchObject({ 'awslogs-stream-prefix': c.Name, mode: 'non-blocking' });
      const group = c.LogConfiguration.Options['awslogs-group'].Ref as string;
      expect(resources[group].Properties.RetentionInDays).toBeGreaterThan(0);
      // Every variable comes per room from the RunTask overrides (and cdk-nag ECS2 forbids them here).
      expect(c.Environment).toBeUndefined();
    }
  });
});

describe('no task role; a per-room sidecar session instead (issue 8.2)', () => {
  const sidecarRoleId = () => idOf(stack.fleet.sidecarRole);

  it('the task has no task role: no container, the game included, gets AWS credentials from ECS', () => {
    expect(taskDefinition().TaskRoleArn).toBeUndefined();
    const ecsTaskRoles = Object.entries(resources)
      .filter(([, r]) => (r as Json).Type === 'AWS::IAM::Role')
      .filter(([, r]) => JSON.stringify((r as Json).Properties.AssumeRolePolicyDocument).includes('ecs-tasks'))
      .map(([id]) => `\${${id}.Arn}`);
    // The execution role alone (image pull, logs), which ECS itself uses and no container sees.
    expect(ecsTaskRoles).toEqual([render(taskDefinition().ExecutionRoleArn)]);
  });

  it('the sidecar role is assumable by the functions that issue sessions only, for at most an hour', () => {
    const role = resources[sidecarRoleId()].Properties as Json;
    expect(role.MaxSessionDuration).toBe(3600);
    expect(role.ManagedPolicyArns).toBeUndefined();
    const trusted = (role.AssumeRolePolicyDocument.Statement as Json[]).flatMap((st) => {
      expect(st.Action).toBe('sts:AssumeRole');
      expect(st.Condition).toBeUndefined();
      expect(Object.keys(st.Principal as Json)).toEqual(['AWS']);
      return asArray(st.Principal.AWS).map(render);
    });
    const issuers = spawningFunctions().map(
      (fn) => `\${${stack.getLogicalId(fn.role.node.defaultChild as never)}.Arn}`,
    );
    expect(trusted.sort()).toEqual(issuers.sort());
    // And only those functions may call AssumeRole on it.
    const assumers = identityStatements(template).filter((st) => st.actions.includes('sts:AssumeRole'));
    expect(assumers.map((st) => st.resources.map(render))).toEqual(issuers.map(() => [`\${${sidecarRoleId()}.Arn}`]));
  });

  it('SendMessage on the controller request queue and its own reply and assign queues; no * action', () => {
    const queueId = idOf(stack.queues.controllerRequests.queue);
    expect(resources[queueId].Properties.QueueName).toBe(
      qualifiedQueueName(stack.namePrefix, queueDefinitions.controllerRequests.name),
    );
    const prefix = createRoomConfig().replyQueuePrefix;
    expect(prefix).toBe(replyQueuePrefix(stack.namePrefix));
    const statements = roleStatements(template, sidecarRoleId()).map((st) => ({
      effect: st.effect,
      actions: [...st.actions].sort(),
      resources: st.resources.map(render),
      condition: st.condition,
    }));
    expect(statements).toEqual([
      { effect: 'Allow', actions: ['sqs:SendMessage'], resources: [`\${${queueId}.Arn}`], condition: undefined },
      {
        effect: 'Allow',
        // SendMessage: a standby server's answer to `assign` on its own assign queue (the session policy narrows it).
        actions: [
          'sqs:CreateQueue',
          'sqs:DeleteMessage',
          'sqs:DeleteQueue',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
          'sqs:SendMessage',
        ],
        resources: [pseudo('sqs', `${prefix}*`)],
        condition: undefined,
      },
    ]);
    expect(
      identityStatements(template)
        .flatMap((st) => st.actions)
        .filter((a) => a.includes('*')),
    ).toEqual([]);
  });

  it('the functions that issue sessions know the role and the request queue ARN', () => {
    for (const config of [
      createRoomConfig(),
      parseConfig(renderedEnvironment(template, logicalId(stack, stack.consumers.controllerRequests))),
    ]) {
      expect(config.sidecarRole).toEqual({
        roleArn: `\${${sidecarRoleId()}.Arn}`,
        requestQueueArn: `\${${idOf(stack.queues.controllerRequests.queue)}.Arn}`,
      });
    }
  });
});

describe('createRoom: starts game server tasks', () => {
  const statements = () => statementsOf(template, stack, createRoom());
  const clusterArn = () => ({ 'Fn::GetAtt': [idOf(stack.fleet.cluster), 'Arn'] });
  const tasksOfCluster = () => pseudo('ecs', `task/${resources[idOf(stack.fleet.cluster)].Properties.ClusterName}/*`);

  it('RunTask on the task definition family only, in the game server cluster only', () => {
    const runTask = withAction(statements(), 'ecs:RunTask');
    expect(runTask).toHaveLength(1);
    expect(runTask[0]!.actions).toEqual(['ecs:RunTask']);
    expect(runTask[0]!.resources.map(render)).toEqual([pseudo('ecs', `task-definition/${taskDefinition().Family}:*`)]);
    expect(runTask[0]!.condition).toEqual({ ArnEquals: { 'ecs:cluster': clusterArn() } });
  });

  it('PassRole on exactly the execution role (tasks have no task role), to ECS tasks only', () => {
    const passRole = withAction(statements(), 'iam:PassRole');
    expect(passRole).toHaveLength(1);
    expect(passRole[0]!.actions).toEqual(['iam:PassRole']);
    expect(passRole[0]!.resources.map(render)).toEqual([render(taskDefinition().ExecutionRoleArn)]);
    expect(passRole[0]!.condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
  });

  it('tags only tasks RunTask creates, and stops tasks of the cluster only', () => {
    const tag = withAction(statements(), 'ecs:TagResource');
    expect(tag).toHaveLength(1);
    expect(tag[0]!.resources.map(render)).toEqual([tasksOfCluster()]);
    expect(tag[0]!.condition).toEqual({ StringEquals: { 'ecs:CreateAction': 'RunTask' } });
    const stop = withAction(statements(), 'ecs:StopTask');
    expect(stop).toHaveLength(1);
    expect(stop[0]!.resources.map(render)).toEqual([tasksOfCluster()]);
    expect(stop[0]!.condition).toEqual({ ArnEquals: { 'ecs:cluster': clusterArn() } });
  });

  it('no function but the room-creating routes (createRoom, matchmakingJoin), the pool keeper and the replacement starters (controller consumer, sweeper) may start tasks, nor pass a role but them and the configuration PUT (which registers task definitions)', () => {
    const spawners = routesNeeding('spawn');
    expect(spawners).toEqual([createRoom(), stack.routeFunctions.get('matchmakingJoin')]);
    const policyOf = (fn: ProjectFunction) =>
      stack.getLogicalId(fn.role.node.findChild('DefaultPolicy').node.defaultChild as never);
    const policies = spawningFunctions().map(policyOf);
    const putConfiguration = policyOf(stack.routeFunctions.get('putGameConfiguration')!);
    const elsewhere = identityStatements(template).filter(
      (s) =>
        !policies.includes(s.owner) &&
        s.actions.some(
          (a) =>
            ['ecs:RunTask', 'ecs:TagResource'].includes(a) || (a === 'iam:PassRole' && s.owner !== putConfiguration),
        ),
    );
    expect(elsewhere).toEqual([]);
  });

  it('gets the spawner settings: this cluster, task definition, public subnets, game security group', () => {
    const config = createRoomConfig();
    expect(config.spawner).toBe('ecs');
    expect(config.ecs).toEqual({
      cluster: `\${${idOf(stack.fleet.cluster)}}`,
      taskDefinition: `\${${idOf(stack.fleet.taskDefinition)}}`,
      subnets: stack.fleet.vpc.publicSubnets.map((subnet) => `\${${idOf(subnet)}}`),
      securityGroups: [`\${${idOf(stack.fleet.securityGroup)}.GroupId}`],
      controllerContainer: fleetContract.controllerContainer,
    });
    expect(config.ecs.subnets.length).toBeGreaterThanOrEqual(2);
    expect(config.queueUrls.controllerRequests).toBe(`\${${idOf(stack.queues.controllerRequests.queue)}}`);
    expect(config.roomRegion).toBe('${AWS::Region}');
    expect(config.replyQueuePrefix).toBe(replyQueuePrefix(stack.namePrefix));
  });

  it("the real ECS spawner's RunTask fits this task definition, its network and the task role", async () => {
    const config = createRoomConfig();
    const ecsMock = mockClient(ECSClient);
    try {
      ecsMock.on(RunTaskCommand).resolves({ tasks: [{ taskArn: 'arn:aws:ecs:eu-west-1:1:task/c/t' }] });
      const body = gameServerConfigurationBodySchema.parse({
        binary: '/game/server',
        args: ['--mode', 'duel'],
        ports: defaultPorts,
        maxPlayers: 8,
      });
      const configuration: GameServerConfiguration = {
        ...body,
        spawnTimeoutS: config.fleet.defaultSpawnTimeoutS,
        gameId: 'arena',
        version: '1.0.0',
        updatedAt: '2026-01-01T00:00:00.000Z',
      };
      const { cluster, taskDefinition: taskDefinitionArn } = config.ecs;
      const spawner = new EcsSpawner(new ECSClient({ region: 'eu-west-1' }), {
        ...config.ecs,
        cluster: cluster!,
        taskDefinition: taskDefinitionArn!,
        sidecar: {
          region: config.region,
          controllerRequestQueueUrl: config.queueUrls.controllerRequests!,
          replyQueuePrefix: config.replyQueuePrefix,
          discoveryServices: {},
        },
        sidecarKeys: (roomId) => Promise.resolve(sidecarKeys(Buffer.alloc(32, 1), roomId)),
        envelopeKey: () => Promise.resolve(envelopeKeyFromSecret('e'.repeat(64))),
      });
      const placement = await spawner.spawn({
        roomId: 'room-1',
        region: config.roomRegion,
        configuration,
        roomSettings: {},
        maxPlayers: 8,
        loginAccessToken: 'server-token',
      });
      const input = ecsMock.commandCalls(RunTaskCommand)[0]!.args[0].input as RunTaskCommandInput;

      // Every override names a container of the task definition.
      const overrides = input.overrides!.containerOverrides!;
      for (const override of overrides) expect(containers().map((c) => c.Name)).toContain(override.name);
      const controller = overrides.find((o) => o.name === fleetContract.controllerContainer)!;
      const sidecar = sidecarEnvironmentSchema.parse(
        Object.fromEntries(controller.environment!.map(({ name, value }) => [name!, value!])),
      );
      // The socket the controller binds is on the shared volume; the game is told the same endpoint.
      expect(sidecar.ZMQ_ENDPOINT).toBe(taskSocketEndpoint);
      // The secrets travel sealed; the key to open them is the container's own `secrets` entry.
      const names = controller.environment!.map((e) => e.name);
      expect(names).toContain('SIDECAR_SEALED');
      expect(names).not.toContain('SIDECAR_KEY');
      const injected = (container(fleetContract.controllerContainer).Secrets as Json[]).map((e) => e.Name);
      expect(injected).toEqual(['SIDECAR_ENVELOPE_KEY']);
      expect(names).not.toContain('SIDECAR_ENVELOPE_KEY');
      const game = overrides.find((o) => o.name === fleetContract.gameContainer)!;
      expect(game.command).toContain(taskSocketEndpoint);

      // The ports it hands out are mapped by the task and opened by the security group.
      const mapped = (container(fleetContract.gameContainer).PortMappings as Json[]).map(
        (m) => `${m.Protocol}/${m.ContainerPort}`,
      );
      const open = openIngress();
      for (const port of placement.ports) {
        for (const protocol of ['udp', 'tcp']) {
          expect(mapped).toContain(`${protocol}/${port}`);
          expect(open.some((r) => r.protocol === protocol && r.from <= port && port <= r.to)).toBe(true);
        }
      }
      // The reply queue the sidecar will create is one the task role may create.
      expect(`${sidecar.REPLY_QUEUE_PREFIX}room-1.fifo`.startsWith(replyQueuePrefix(stack.namePrefix))).toBe(true);
      expect(sidecar.CONTROLLER_REQUEST_QUEUE_URL).toBe(`\${${idOf(stack.queues.controllerRequests.queue)}}`);
      // Fargate with a public IP in the subnets and security group of this stack.
      expect(input.launchType).toBe('FARGATE');
      expect(input.networkConfiguration!.awsvpcConfiguration!.assignPublicIp).toBe('ENABLED');
      expect(input.taskDefinition).toBe(`\${${idOf(stack.fleet.taskDefinition)}}`);
      // RunTask tags its tasks, which is why createRoom has ecs:TagResource.
      expect(input.tags!.length).toBeGreaterThan(0);
    } finally {
      ecsMock.restore();
    }
  });

  it("the routes that sign or keep idempotency records, the controller consumer and the pool keeper (it mints standby servers' tokens) read the token signing secret; nobody else (but its provisioner)", () => {
    const secretId = idOf(stack.tokenSigningKey);
    const provisionerRole = idOf(stack.signingKey.provisioner.role);
    const signers = [...routesNeeding('signTokens'), stack.consumers.controllerRequests, stack.poolKeeper];
    const readsSigningKey = (s: Statement) => s.resources.some((r) => render(r) === `\${${secretId}}`);
    const readers = identityStatements(template)
      .filter((s) => s.actions.some((a) => a.startsWith('secretsmanager:')) && readsSigningKey(s))
      .filter((s) => !roleStatements(template, provisionerRole).some((p) => p.owner === s.owner));
    expect(readers).toHaveLength(signers.length);
    // IAM statements of one role with the same actions are merged: a spawner's names the envelope key too.
    const envelopeKey = { Ref: idOf(stack.fleet.envelopeKey) };
    for (const reader of readers) {
      expect(reader.actions).toEqual(['secretsmanager:GetSecretValue']);
      expect(reader.resources.filter((r) => render(r) !== render(envelopeKey))).toEqual([{ Ref: secretId }]);
    }
    for (const fn of signers) {
      expect(renderedEnvironment(template, logicalId(stack, fn)).TOKEN_SIGNING_JWK_SECRET_ARN).toBe(`\${${secretId}}`);
      expect(
        withAction(statementsOf(template, stack, fn), 'secretsmanager:GetSecretValue').filter(readsSigningKey),
      ).toHaveLength(1);
    }
  });
});

describe('sidecar envelope key: the controller container alone gets it, from Secrets Manager', () => {
  const secretId = () => idOf(stack.fleet.envelopeKey);
  const readsEnvelopeKey = (s: Statement) => s.resources.some((r) => render(r) === `\${${secretId()}}`);

  it('a generated secret of 64 alphanumerics (no custom resource), rotated by hand', () => {
    expect(resources[secretId()].Properties.GenerateSecretString).toMatchObject({
      PasswordLength: 64,
      ExcludePunctuation: true,
    });
  });

  it("the controller container's only secret; the game container has none, and no container has it in clear", () => {
    expect(container(fleetContract.controllerContainer).Secrets).toEqual([
      { Name: 'SIDECAR_ENVELOPE_KEY', ValueFrom: { Ref: secretId() } },
    ]);
    expect(container(fleetContract.gameContainer).Secrets).toBeUndefined();
    for (const c of containers()) expect(c.Environment).toBeUndefined();
  });

  it('the execution role may read that secret and no other', () => {
    const executionRole = idOf(stack.fleet.executionRole as never);
    const secretStatements = roleStatements(template, executionRole).filter((s) =>
      s.actions.some((a) => a.startsWith('secretsmanager:')),
    );
    expect(secretStatements).toHaveLength(1);
    expect(secretStatements[0]!.resources).toEqual([{ Ref: secretId() }]);
    expect(secretStatements[0]!.actions).toContain('secretsmanager:GetSecretValue');
  });

  it('the functions that start game servers read it (GetSecretValue only) and know its ARN; no other function', () => {
    const spawners = spawningFunctions();
    const readers = identityStatements(template).filter(readsEnvelopeKey);
    const executionRole = idOf(stack.fleet.executionRole as never);
    const functionReaders = readers.filter(
      (s) => !roleStatements(template, executionRole).some((r) => r.owner === s.owner),
    );
    expect(functionReaders).toHaveLength(spawners.length);
    for (const fn of spawners) {
      const reads = statementsOf(template, stack, fn).filter(readsEnvelopeKey);
      expect(reads.map((r) => r.actions)).toEqual([['secretsmanager:GetSecretValue']]);
      const config = parseConfig(renderedEnvironment(template, logicalId(stack, fn)));
      expect(config.sidecarEnvelopeKeySecretArn).toBe(`\${${secretId()}}`);
    }
  });
});

describe('controller consumer: learns where players reach a task (issue 10, point 1)', () => {
  const consumer = () => stack.consumers.controllerRequests;
  const clusterArn = () => ({ 'Fn::GetAtt': [idOf(stack.fleet.cluster), 'Arn'] });
  const tasksOfCluster = () => pseudo('ecs', `task/${resources[idOf(stack.fleet.cluster)].Properties.ClusterName}/*`);

  it('may DescribeTasks on tasks of the game server cluster only, and DescribeNetworkInterfaces (no resource-level permissions)', () => {
    const statements = statementsOf(template, stack, consumer());
    const describeTasks = withAction(statements, 'ecs:DescribeTasks');
    expect(describeTasks).toHaveLength(1);
    // Beside StopTask (it stops the server it replaces), on the same tasks of the same cluster.
    expect(describeTasks[0]!.actions).toEqual(['ecs:DescribeTasks', 'ecs:StopTask']);
    expect(describeTasks[0]!.resources.map(render)).toEqual([tasksOfCluster()]);
    expect(describeTasks[0]!.condition).toEqual({ ArnEquals: { 'ecs:cluster': clusterArn() } });
    const describeEnis = withAction(statements, 'ec2:DescribeNetworkInterfaces');
    expect(describeEnis).toHaveLength(1);
    // CDK merges it with the other `*` statement (X-Ray); the only EC2 action anywhere is this read.
    expect(statements.flatMap((s) => s.actions).filter((a) => a.startsWith('ec2:'))).toEqual([
      'ec2:DescribeNetworkInterfaces',
    ]);
    expect(describeEnis[0]!.resources).toEqual(['*']);
  });

  it('knows the cluster (ECS_CLUSTER), and no other function may look up interfaces, nor tasks but the sweeper', () => {
    expect(renderedEnvironment(template, logicalId(stack, consumer())).ECS_CLUSTER).toBe(
      `\${${idOf(stack.fleet.cluster)}}`,
    );
    const policyOf = (fn: ProjectFunction) =>
      stack.getLogicalId(fn.role.node.findChild('DefaultPolicy').node.defaultChild as never);
    const [policy, sweeper] = [consumer(), stack.sweeper].map(policyOf);
    const elsewhere = identityStatements(template).filter(
      (s) =>
        s.owner !== policy &&
        s.actions.some(
          (a) => a === 'ec2:DescribeNetworkInterfaces' || (a === 'ecs:DescribeTasks' && s.owner !== sweeper),
        ),
    );
    expect(elsewhere).toEqual([]);
  });

  it('tasks get a public IPv4: public subnets (routed to an internet gateway, public IP on launch) and assignPublicIp', () => {
    const subnetIds = stack.fleet.vpc.publicSubnets.map((subnet) => idOf(subnet));
    expect(subnetIds.length).toBeGreaterThanOrEqual(2);
    for (const id of subnetIds) expect(resources[id].Properties.MapPublicIpOnLaunch).toBe(true);
    const routes = Object.values(template.findResources('AWS::EC2::Route')).filter(
      (route) => (route.Properties as Json).DestinationCidrBlock === '0.0.0.0/0',
    );
    expect(routes.length).toBe(subnetIds.length);
    for (const route of routes) expect(JSON.stringify((route.Properties as Json).GatewayId)).toMatch(/IGW/);
    expect(stack.fleet.vpc.privateSubnets).toEqual([]);
  });
});

describe('room sweeper', () => {
  const sweeperId = () => logicalId(stack, stack.sweeper);

  it('runs lambdas/schedule/room-sweeper.ts every minute, without retries', () => {
    const entry = fs.readFileSync(path.join(__dirname, '..', '..', sweeperEntry), 'utf8');
    expect(sweeperEntry).toBe('lambdas/schedule/room-sweeper.ts');
    expect(entry).toMatch(/export const handler\b/);
    expect(resources[sweeperId()].Properties.Handler).toBe('index.handler');
    expect(resources[sweeperId()].Properties.Timeout).toBeLessThan(60);
    const [, rule] = only('AWS::Events::Rule', { Properties: { Description: 'Runs the room sweeper' } });
    expect(rule.Properties.ScheduleExpression).toBe('rate(1 minute)');
    expect(rule.Properties.State).toBe('ENABLED');
    expect(rule.Properties.Targets).toEqual([
      expect.objectContaining({ Arn: { 'Fn::GetAtt': [sweeperId(), 'Arn'] }, RetryPolicy: expect.anything() }),
    ]);
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [sweeperId(), 'Arn'] },
      Principal: 'events.amazonaws.com',
    });
  });

  it('reads live rooms through the sweeper index, alone may Scan the table, and may stop tasks of the cluster (and start replacements)', () => {
    const statements = statementsOf(template, stack, stack.sweeper);
    // The sweeper queries gsi3 for live rooms; it alone Scans, the table and no index, for a
    // release's one-time pass over older items (core/upgrade/table-upgrade.ts).
    const scans = withAction(identityStatements(template), 'dynamodb:Scan');
    expect(scans).toEqual(withAction(statements, 'dynamodb:Scan'));
    expect(scans.map((s) => s.resources)).toEqual([[{ 'Fn::GetAtt': [idOf(stack.table), 'Arn'] }]]);
    const sweeperIndex = { 'Fn::Join': ['', [{ 'Fn::GetAtt': [idOf(stack.table), 'Arn'] }, '/index/gsi3']] };
    expect(withAction(statements, 'dynamodb:Query').flatMap((s) => s.resources)).toContainEqual(sweeperIndex);
    const actions = statements.flatMap((s) => s.actions);
    expect(actions).toContain('dynamodb:BatchGetItem');
    expect(actions).toContain('dynamodb:UpdateItem');
    expect(actions).toContain('ecs:StopTask');
    expect(actions).not.toContain('sqs:SendMessage');
  });

  it('its environment builds a real ECS spawner (it needs cluster and task definition to stop tasks)', () => {
    const config = parseConfig(renderedEnvironment(template, sweeperId()));
    expect(config.ecs.cluster).toBe(`\${${idOf(stack.fleet.cluster)}}`);
    expect(config.ecs.taskDefinition).toBe(`\${${idOf(stack.fleet.taskDefinition)}}`);
    // lambdas/dependencies.ts builds the spawner's sidecar settings eagerly: they need the URL.
    expect(config.queueUrls.controllerRequests).toBeDefined();
  });

  it('may read the controller-requests queue backlog (GetQueueAttributes on that queue only), and knows its schedule', () => {
    const statements = statementsOf(template, stack, stack.sweeper);
    // On the controller queue (backlog) and, for the orphan pass, the reply queues (their age).
    const observe = withAction(statements, 'sqs:GetQueueAttributes');
    expect(observe).toHaveLength(2);
    expect(observe[0]!.actions).toEqual(['sqs:GetQueueAttributes']);
    expect(observe[0]!.resources).toEqual([{ 'Fn::GetAtt': [idOf(stack.queues.controllerRequests.queue), 'Arn'] }]);
    expect(observe[1]!.resources.map(render)).toEqual([pseudo('sqs', `${replyQueuePrefix(stack.namePrefix)}*`)]);
    const actions = statements.flatMap((s) => s.actions);
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:PurgeQueue']) {
      expect(actions).not.toContain(action);
    }
    const config = parseConfig(renderedEnvironment(template, sweeperId()));
    expect(config.queueUrls.controllerRequests).toBe(`\${${idOf(stack.queues.controllerRequests.queue)}}`);
    expect(config.sweepIntervalS).toBe(60);
    expect(config.heartbeatTimeoutS).toBe(10);
  });
});

describe('cost bounds', () => {
  const sweeperId = () => logicalId(stack, stack.sweeper);

  it("lets the sweeper list and describe the cluster's tasks, and list, age and delete only this deployment's reply queues", () => {
    const statements = statementsOf(template, stack, stack.sweeper);
    const inCluster = { ArnEquals: { 'ecs:cluster': { 'Fn::GetAtt': [idOf(stack.fleet.cluster), 'Arn'] } } };
    expect(withAction(statements, 'ecs:ListTasks')).toEqual([
      expect.objectContaining({ actions: ['ecs:ListTasks'], resources: ['*'], condition: inCluster }),
    ]);
    const describe = withAction(statements, 'ecs:DescribeTasks');
    expect(describe).toHaveLength(1);
    expect(describe[0]!.resources.map(render)).toEqual([pseudo('ecs', `task/${stack.fleet.clusterName}/*`)]);
    expect(describe[0]!.condition).toEqual(inCluster);
    // CDK merges it with X-Ray's unconditioned "*" statement: ListQueues has no resource type.
    expect(withAction(statements, 'sqs:ListQueues')).toEqual([
      expect.objectContaining({ actions: expect.arrayContaining(['sqs:ListQueues']), resources: ['*'] }),
    ]);
    const deletes = withAction(statements, 'sqs:DeleteQueue');
    expect(deletes).toHaveLength(1);
    expect(deletes[0]!.resources.map(render)).toEqual([pseudo('sqs', `${replyQueuePrefix(stack.namePrefix)}*`)]);
    // No other function may delete queues or list tasks.
    for (const fn of [...stack.routeFunctions.values(), ...Object.values(stack.consumers)]) {
      const actions = statementsOf(template, stack, fn).flatMap((s) => s.actions);
      for (const action of ['ecs:ListTasks', 'sqs:ListQueues']) expect(actions).not.toContain(action);
    }
  });

  it('gives every function the default cost bounds, and the CDK context changes them', () => {
    const config = parseConfig(renderedEnvironment(template, sweeperId()));
    // The server caps are the default scale profile's (docs/scale.md).
    expect(config.costBounds).toEqual({
      emptyRoomGraceS: 60,
      maxLifetimeS: 21_600,
      maxRunningServers: 200,
      maxServersPerConfiguration: 200,
      orphanGraceS: 300,
    });
    const custom = addRoomkeeper(
      newApp({
        stage: 'bounded',
        ...auth,
        gameImage: 'public.ecr.aws/x/y:1',
        maxRunningServers: '40',
        emptyRoomGraceS: 30,
      }),
    );
    const customTemplate = Template.fromStack(custom);
    for (const fn of [custom.sweeper, custom.routeFunctions.get('createRoom')!]) {
      const bounds = parseConfig(renderedEnvironment(customTemplate, logicalId(custom, fn))).costBounds;
      expect(bounds).toMatchObject({ maxRunningServers: 40, emptyRoomGraceS: 30, maxServersPerConfiguration: 200 });
    }
    expect(() => addRoomkeeper(newApp({ stage: 'badbound', ...auth, maxRunningServers: 'many' }))).toThrow(
      /"maxRunningServers" must be a positive integer/,
    );
  });
});

describe('configuration PUT: a task definition per configuration (issue 10, point 5)', () => {
  const putConfiguration = () => stack.routeFunctions.get('putGameConfiguration')!;

  it('may describe and register task definitions, and pass exactly the execution role to ECS tasks', () => {
    const statements = statementsOf(template, stack, putConfiguration());
    const register = withAction(statements, 'ecs:RegisterTaskDefinition');
    expect(register).toHaveLength(1);
    expect(register[0]!.actions.filter((a) => a.startsWith('ecs:')).sort()).toEqual([
      'ecs:DescribeTaskDefinition',
      'ecs:RegisterTaskDefinition',
    ]);
    const passRole = withAction(statements, 'iam:PassRole');
    expect(passRole).toHaveLength(1);
    expect(passRole[0]!.resources.map(render)).toEqual([render(taskDefinition().ExecutionRoleArn)]);
    expect(passRole[0]!.condition).toEqual({ StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } });
    // It registers; it never runs tasks.
    expect(withAction(statements, 'ecs:RunTask')).toEqual([]);
  });

  it('knows the template revision (ECS_TASK_DEFINITION); only it and the functions that start servers may register', () => {
    const config = parseConfig(renderedEnvironment(template, logicalId(stack, putConfiguration())));
    expect(config.ecs.taskDefinition).toBe(`\${${idOf(stack.fleet.taskDefinition)}}`);
    // Those that start servers register a configuration anew once the deployed template changed.
    const registering = [putConfiguration(), ...spawningFunctions()];
    const policies = registering.map((fn) =>
      stack.getLogicalId(fn.role.node.findChild('DefaultPolicy').node.defaultChild as never),
    );
    for (const fn of spawningFunctions()) {
      const statements = statementsOf(template, stack, fn);
      expect(withAction(statements, 'ecs:RegisterTaskDefinition')).toHaveLength(1);
      expect(parseConfig(renderedEnvironment(template, logicalId(stack, fn))).ecs.taskDefinition).toBe(
        config.ecs.taskDefinition,
      );
    }
    const elsewhere = identityStatements(template).filter(
      (s) => !policies.includes(s.owner) && s.actions.some((a) => a.endsWith('TaskDefinition')),
    );
    expect(elsewhere).toEqual([]);
  });
});

describe('spawn timing and port capacity (issue 10, points 4 and 5)', () => {
  it("every function gets Fargate's spawn timing and the fleet's port count, which is what the security group opens", () => {
    const functions = Object.entries(template.findResources('AWS::Lambda::Function')).filter(([, fn]) =>
      JSON.stringify(fn.Properties.Environment ?? {}).includes('TABLE_NAME'),
    );
    expect(functions.length).toBeGreaterThan(10);
    for (const [id] of functions) {
      const config = parseConfig(renderedEnvironment(template, id));
      expect([id, config.createWaitS, config.fleet]).toEqual([
        id,
        ecsSpawnTiming.createWaitS,
        // A public game image: no private ECR repository to pull from (configurations' images are checked).
        { maxPorts: defaultPorts, defaultSpawnTimeoutS: ecsSpawnTiming.defaultSpawnTimeoutS, ecrRepositories: [] },
      ]);
    }
    const open = openIngress();
    for (const rule of open) expect(rule.to - rule.from + 1).toBe(defaultPorts);
  });

  it('the numbers: a spawn deadline of twice a mid-size Fargate start (50–60 s), a create wait well under one', () => {
    expect(ecsSpawnTiming.defaultSpawnTimeoutS).toBeGreaterThanOrEqual(2 * 60);
    expect(ecsSpawnTiming.createWaitS).toBeLessThan(15);
  });
});

describe('network', () => {
  it('the game server rule is the only ingress open to the internet: game ports, UDP and TCP', () => {
    const groupId = idOf(stack.fleet.securityGroup);
    const last = fleetContract.firstGamePort + defaultPorts - 1;
    expect(openIngress().sort((a, b) => a.protocol.localeCompare(b.protocol))).toEqual([
      { group: groupId, protocol: 'tcp', from: fleetContract.firstGamePort, to: last },
      { group: groupId, protocol: 'udp', from: fleetContract.firstGamePort, to: last },
    ]);
  });

  it('game servers may only reach out over HTTPS', () => {
    const group = resources[idOf(stack.fleet.securityGroup)].Properties as Json;
    expect(group.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
    ]);
    template.resourceCountIs('AWS::EC2::SecurityGroupEgress', 0);
  });

  it('public subnets through an internet gateway, no NAT gateway, flow logs with retention', () => {
    template.resourceCountIs('AWS::EC2::NatGateway', 0);
    template.resourceCountIs('AWS::EC2::InternetGateway', 1);
    for (const subnet of stack.fleet.vpc.publicSubnets) {
      expect(resources[idOf(subnet)].Properties.MapPublicIpOnLaunch).toBe(true);
    }
    const [, flowLog] = only('AWS::EC2::FlowLog');
    expect(flowLog.Properties).toMatchObject({ ResourceType: 'VPC', LogDestinationType: 'cloud-watch-logs' });
    expect(resources[flowLog.Properties.LogGroupName.Ref].Properties.RetentionInDays).toBeGreaterThan(0);
  });

  it('the cluster has Container Insights on', () => {
    const [, cluster] = only('AWS::ECS::Cluster');
    expect(cluster.Properties.ClusterSettings).toEqual([{ Name: 'containerInsights', Value: 'enabled' }]);
  });
});

describe('context: gameImage and gamePorts', () => {
  it('-c gameImage=<private ECR image> -c gamePorts=6 -c gameServerEgress=…: the image, its pull permission, ports, open range, capacity and egress', () => {
    const image = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/arena:1.2.0';
    const custom = addRoomkeeper(
      newApp({
        stage: 'custom',
        ...auth,
        gameImage: image,
        gamePorts: '6',
        gameServerEgress: 'udp:3478, tcp:5222-5230,tcp:8443',
      }),
    );
    const stderr = jest.spyOn(console, 'error');
    const customTemplate = Template.fromStack(custom);
    // No warning at all: neither the placeholder nor CDK's "ECR image without pull policy".
    expect(stderr).not.toHaveBeenCalled();
    stderr.mockRestore();
    const executionRole = render(
      Object.values(customTemplate.findResources('AWS::ECS::TaskDefinition'))[0]!.Properties.ExecutionRoleArn,
    ).replace(/^\$\{(.*)\.Arn\}$/, '$1');
    const pulls = roleStatements(customTemplate, executionRole).filter((s) => s.actions.includes('ecr:BatchGetImage'));
    expect(pulls.flatMap((s) => s.resources.map(render))).toContain(
      'arn:aws:ecr:eu-west-1:123456789012:repository/studio/arena',
    );
    const [game] = (
      Object.values(customTemplate.findResources('AWS::ECS::TaskDefinition'))[0]!.Properties
        .ContainerDefinitions as Json[]
    ).filter((c) => c.Name === fleetContract.gameContainer);
    expect(render(game!.Image).replace('${AWS::URLSuffix}', 'amazonaws.com')).toBe(image);
    expect(game!.PortMappings).toHaveLength(12);
    customTemplate.hasResourceProperties('AWS::EC2::SecurityGroup', {
      SecurityGroupIngress: Match.arrayWith([
        Match.objectLike({
          IpProtocol: 'udp',
          FromPort: fleetContract.firstGamePort,
          ToPort: fleetContract.firstGamePort + 5,
        }),
      ]),
    });
    expect(Annotations.fromStack(custom).findWarning('*', Match.stringLikeRegexp('No gameImage'))).toEqual([]);
    // Issue 10, point 5: configurations are refused beyond the 6 ports this fleet opens; games get their extra egress.
    const createRoomId = custom.getLogicalId(
      custom.routeFunctions.get('createRoom')!.function.node.defaultChild as never,
    );
    expect(parseConfig(renderedEnvironment(customTemplate, createRoomId)).fleet).toMatchObject({
      maxPorts: 6,
      // The repository the execution role may pull from: configurations' private images must be in it.
      ecrRepositories: ['123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/arena'],
    });
    const group = Object.values(customTemplate.findResources('AWS::EC2::SecurityGroup')).find((g) =>
      JSON.stringify(g.Properties.GroupDescription).includes('game servers'),
    )!;
    expect(group.Properties.SecurityGroupEgress).toEqual([
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 443, ToPort: 443 }),
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'udp', FromPort: 3478, ToPort: 3478 }),
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 5222, ToPort: 5230 }),
      expect.objectContaining({ CidrIp: '0.0.0.0/0', IpProtocol: 'tcp', FromPort: 8443, ToPort: 8443 }),
    ]);
  });

  it.each([
    ['udp:3478,icmp:8', 'icmp:8'],
    ['tcp:0', 'tcp:0'],
    ['tcp:5230-5222', 'tcp:5230-5222'],
    ['udp:65536', 'udp:65536'],
    // The list form of cdk.json: its first item is good.
    [['udp:3478', 'tcp'], 'tcp'],
  ])('refuses gameServerEgress=%p, naming the bad item', (value, bad) => {
    expect(() => addRoomkeeper(newApp({ stage: 'egress', ...auth, gameServerEgress: value }))).toThrow(
      `CDK context "gameServerEgress": "${bad}" is not protocol:port or protocol:from-to`,
    );
  });

  it.each(['0', '17', 'four', 2.5])('refuses gamePorts=%p', (ports) => {
    expect(() => addRoomkeeper(newApp({ stage: 'ports', ...auth, gamePorts: ports }))).toThrow(/gamePorts/);
  });
});
