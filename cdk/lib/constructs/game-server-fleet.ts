import * as fs from 'node:fs';
import * as path from 'node:path';
import { Aws, Duration, IgnoreMode, Size, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as ecr from 'aws-cdk-lib/aws-ecr';
import { Platform } from 'aws-cdk-lib/aws-ecr-assets';
import * as ecs from 'aws-cdk-lib/aws-ecs';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { repoRoot } from '../paths';
import { ecrRepositoryOf } from '../../../core/gameservers/fleet-fit';
import type { ProjectQueue } from './project-queue';

/**
 * Names and numbers the ECS spawner (core/gameservers/ecs-spawner.ts) relies on. The spawner
 * addresses containers by name in its RunTask overrides, puts the game on ports from
 * `firstGamePort`, and has the controller bind `ipc:///zmq/game.sock` (`taskSocketEndpoint`):
 * test/cdk/game-servers.test.ts runs the real spawner against this task definition to prove they agree.
 */
export const fleetContract = {
  controllerContainer: 'controller',
  gameContainer: 'game',
  firstGamePort: 7777,
  /** The task volume both containers mount: the directory of the ZeroMQ ipc socket. */
  socketVolume: { name: 'zmq', containerPath: '/zmq' },
} as const;

/**
 * Fargate start times (docs/ecs-fleet.md "Spawn times"): a mid-size image (300 MB–1 GB) starts
 * in 50–60 s, a small one with a SOCI index in 20–30 s, and a slow start of a large image
 * passes 90 s. So configurations that set no `spawnTimeoutS` get 120 s (2× the typical
 * mid-size start) instead of the local 30 s; and a create holds its caller only 5 s instead of
 * 25 s: no Fargate task is up that fast, while every waiting create holds a Lambda execution
 * (at RunTask's 20/s, 25 s of waiting is 500 concurrent executions, 5 s is 100). The caller
 * gets 202 and polls GET, as it must handle anyway, after the 202's `Retry-After`: 5 s, so a
 * player waiting out a minute's start reads the room about ten times, not forty.
 */
export const ecsSpawnTiming = { defaultSpawnTimeoutS: 120, createWaitS: 5, pollAfterS: 5 } as const;

/**
 * SIGTERM → SIGKILL per container on StopTask (Fargate allows at most 120 s each). ECS stops
 * the controller first (it depends on the game), and the game only once the controller has
 * exited. The controller's stop is the `shutdown` notice (a send of at most 1 s), the game's
 * KILL_GRACE_S (3 s) to leave, the `exited` report and the reply queues' deletion (at most
 * 5 s each): 30 s leaves it twice that. The game keeps ECS's default 30 s after its SIGTERM,
 * for a game that ignores the notice but saves its state on the signal.
 */
export const taskStopTimeouts = { controllerS: 30, gameS: 30 } as const;

/**
 * Tasks run on x86-64, what most game server builds target; the controller image is built for
 * the same platform (an arm64 laptop would otherwise push an image the task cannot run).
 */
const taskArchitecture = { cpu: ecs.CpuArchitecture.X86_64, image: Platform.LINUX_AMD64 } as const;

/**
 * The controller sidecar's Dockerfile, from the repository root: its build context is the
 * repository root (the bundle needs core/ and the lock file), narrowed by the
 * `<Dockerfile>.dockerignore` next to it.
 */
export const controllerDockerfile = 'containers/controller/Dockerfile';

/**
 * The patterns of `<dockerfile>.dockerignore`. BuildKit reads that file by itself; CDK only
 * reads a `.dockerignore` at the context root, so without these patterns synthesis would
 * stage the whole repository (node_modules included) as the image's context.
 */
function dockerIgnorePatterns(dockerfile: string): string[] {
  return fs
    .readFileSync(path.join(repoRoot, `${dockerfile}.dockerignore`), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}

/** The controller container's variable ECS fills from the envelope secret (core/gameservers/sidecar-environment.ts). */
const envelopeKeyVariable = 'SIDECAR_ENVELOPE_KEY';

/** Environment variable names of the spawner settings in core/infra/config.ts. */
const env = {
  spawner: 'SPAWNER',
  cluster: 'ECS_CLUSTER',
  taskDefinition: 'ECS_TASK_DEFINITION',
  subnets: 'ECS_SUBNETS',
  securityGroups: 'ECS_SECURITY_GROUPS',
  controllerContainer: 'ECS_CONTROLLER_CONTAINER',
} as const;

export interface GameServerFleetProps {
  /** Deployment prefix (`roomkeeper-prod`): cluster `roomkeeper-prod-game-servers`, family `roomkeeper-prod-game-server`. */
  readonly namePrefix: string;
  /** Where every sidecar sends the game's requests (`inited`, `joined`, `left`, heartbeats). */
  readonly controllerRequests: ProjectQueue;
  /** Name prefix of the reply queues the sidecars create and delete (`roomkeeper-prod-reply-`). */
  readonly replyQueuePrefix: string;
  /** Image of the game server container (registry/name:tag). */
  readonly gameImage: string;
  /** How many ports (from 7777) a game server may use; the task maps and the security group opens them. */
  readonly gamePorts: number;
  /**
   * What game servers may reach beyond HTTPS (which the sidecar needs), to any IPv4 address:
   * a game's own backend, a UDP relay. Each port is one more way out for a compromised game.
   * @default none
   */
  readonly extraEgress?: readonly ec2.Port[];
  readonly logRetention: logs.RetentionDays;
  /** Fargate task size. @default 512 (0.5 vCPU) */
  readonly cpu?: number;
  /** @default 1024 MiB */
  readonly memoryLimitMiB?: number;
  /**
   * Other ECS clusters of this account and region that hosts name (docs/placement.md): the
   * functions may run, stop, list and describe room tasks there too, as in the fleet's own.
   * @default none
   */
  readonly hostClusters?: readonly string[];
  /**
   * Prefix length of each game server subnet (one per Availability Zone, three at most, in
   * the VPC's /16): a task takes one address. Changing it replaces the subnets. @default 20
   */
  readonly subnetCidrMask?: number;
}

/**
 * Where game servers run: one Fargate task per room in an ECS cluster, each with two
 * essential containers, the controller sidecar and the game server image, which talk over
 * a ZeroMQ ipc socket on a task volume both mount. The spawner starts tasks with RunTask
 * and passes the room's command line and environment as container overrides.
 */
export class GameServerFleet extends Construct {
  readonly vpc: ec2.Vpc;
  readonly cluster: ecs.Cluster;
  readonly securityGroup: ec2.SecurityGroup;
  readonly taskDefinition: ecs.FargateTaskDefinition;
  readonly requestQueueArn: string;
  private readonly replyQueuePrefix: string;
  private sidecarSessions: iam.Role | undefined;
  readonly executionRole: iam.IRole;
  readonly controller: ecs.ContainerDefinition;
  readonly game: ecs.ContainerDefinition;
  readonly logGroup: logs.LogGroup;
  /** The ports a game server may listen on (the task maps them, the security group opens them). */
  readonly gamePorts: readonly number[];
  readonly clusterName: string;
  /** The fleet's cluster and the host clusters: where room tasks may run. */
  readonly clusterNames: readonly string[];
  readonly family: string;
  /** Private ECR repositories the execution role may pull (the game image's): configurations' images must be in one, or public. */
  readonly pullableRepositories: string[] = [];
  /**
   * The sidecar envelope key (core/gameservers/sidecar-envelope.ts): the spawners seal each
   * controller container's secrets under it, and ECS injects it into the controller container
   * alone at start (the task definition's `secrets`, read with the execution role).
   */
  readonly envelopeKey: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: GameServerFleetProps) {
    super(scope, id);
    if (!Number.isInteger(props.gamePorts) || props.gamePorts < 1 || props.gamePorts > 16) {
      throw new Error(
        `gamePorts must be an integer from 1 to 16 (a configuration asks for at most 16), not ${props.gamePorts}.`,
      );
    }
    const first = fleetContract.firstGamePort;
    this.gamePorts = Array.from({ length: props.gamePorts }, (_, i) => first + i);
    this.clusterName = `${props.namePrefix}-game-servers`;
    for (const name of props.hostClusters ?? []) {
      if (!/^[A-Za-z0-9_-]{1,255}$/.test(name)) throw new Error(`hostClusters: "${name}" is not an ECS cluster name.`);
    }
    this.clusterNames = [
      this.clusterName,
      ...new Set((props.hostClusters ?? []).filter((n) => n !== this.clusterName)),
    ];
    this.family = `${props.namePrefix}-game-server`;

    this.vpc = this.newVpc(props.logRetention, props.subnetCidrMask ?? 20);
    this.cluster = new ecs.Cluster(this, 'Cluster', {
      vpc: this.vpc,
      clusterName: this.clusterName,
      containerInsightsV2: ecs.ContainerInsights.ENABLED,
      // FARGATE and FARGATE_SPOT, for hosts that name a capacity provider (docs/placement.md).
      enableFargateCapacityProviders: true,
    });
    this.securityGroup = this.newSecurityGroup(props.extraEgress ?? []);

    // No task role: see `newSidecarRole`. Its trust names exactly the functions that issue
    // sessions (`grantSidecarCredentials`).
    this.requestQueueArn = props.controllerRequests.queue.queueArn;
    this.replyQueuePrefix = props.replyQueuePrefix;

    this.taskDefinition = new ecs.FargateTaskDefinition(this, 'TaskDefinition', {
      family: this.family,
      cpu: props.cpu ?? 512,
      memoryLimitMiB: props.memoryLimitMiB ?? 1024,
      runtimePlatform: {
        cpuArchitecture: taskArchitecture.cpu,
        operatingSystemFamily: ecs.OperatingSystemFamily.LINUX,
      },
      // A bind mount volume on the task's ephemeral storage, shared by both containers.
      volumes: [{ name: fleetContract.socketVolume.name }],
    });
    this.logGroup = new logs.LogGroup(this, 'GameServerLogs', { retention: props.logRetention });
    this.envelopeKey = this.newEnvelopeKey(props.namePrefix);
    const { controller, game } = this.addContainers(props.gameImage);
    this.controller = controller;
    this.game = game;

    // CDK always makes a task role; the task gets none (see the sidecar role).
    (this.taskDefinition.node.defaultChild as ecs.CfnTaskDefinition).addPropertyDeletionOverride('TaskRoleArn');
    this.taskDefinition.node.tryRemoveChild('TaskRole');

    this.executionRole = this.taskDefinition.obtainExecutionRole();
    Validations.of(this.executionRole).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'CDK default execution role: ecr:GetAuthorizationToken (to pull the controller image) supports no ' +
        'resource-level permissions; its other statements name the image repository and the log group.',
    });
  }

  /**
   * Public subnets only, and no NAT gateway. Players connect straight to each task's public
   * IP, so every task needs one whatever else we build; with it, the little egress the sidecar
   * has (HTTPS to SQS, and to ECR and CloudWatch Logs for ECS) leaves through the internet
   * gateway for free. A NAT gateway (about $33 a month per AZ plus $0.045/GB) or interface
   * endpoints (about $7 a month each per AZ, five services) would add cost and buy no
   * isolation: the tasks must accept traffic from the internet anyway.
   */
  private newVpc(logRetention: logs.RetentionDays, cidrMask: number): ec2.Vpc {
    const vpc = new ec2.Vpc(this, 'Vpc', {
      maxAzs: 3,
      natGateways: 0,
      subnetConfiguration: [{ name: 'GameServers', subnetType: ec2.SubnetType.PUBLIC, cidrMask }],
      // Nothing in this VPC uses its default security group (tasks get the one below). Locking
      // it down takes a custom resource: a Lambda function with an AWS managed policy.
      restrictDefaultSecurityGroup: false,
    });
    // Rejected flows only: accepted flows are the game traffic itself (one per player per
    // interval), which would dominate the log bill; rejected ones show scans and misrouted
    // players, which is what someone investigating the fleet looks for.
    vpc.addFlowLog('FlowLogs', {
      destination: ec2.FlowLogDestination.toCloudWatchLogs(
        new logs.LogGroup(this, 'FlowLogGroup', { retention: logRetention }),
      ),
      trafficType: ec2.FlowLogTrafficType.REJECT,
    });
    return vpc;
  }

  /** Players in on the game ports (UDP and TCP), HTTPS out, and the extra egress asked for. */
  private newSecurityGroup(extraEgress: readonly ec2.Port[]): ec2.SecurityGroup {
    const first = this.gamePorts[0]!;
    const last = this.gamePorts[this.gamePorts.length - 1]!;
    const group = new ec2.SecurityGroup(this, 'GameServerSecurityGroup', {
      vpc: this.vpc,
      // Fixed text: a description cannot change without replacing the group, which fails
      // while tasks still use it.
      description: 'Roomkeeper game servers: players on the game ports (UDP and TCP), HTTPS out',
      allowAllOutbound: false,
    });
    group.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.udpRange(first, last), 'Players (UDP game traffic)');
    group.addIngressRule(ec2.Peer.anyIpv4(), ec2.Port.tcpRange(first, last), 'Players (TCP game traffic)');
    group.addEgressRule(ec2.Peer.anyIpv4(), ec2.Port.tcp(443), 'HTTPS to AWS APIs (SQS, ECR, CloudWatch Logs)');
    for (const port of extraEgress) {
      group.addEgressRule(ec2.Peer.anyIpv4(), port, `Game server egress (${port.toString()})`);
    }
    Validations.of(group).acknowledge({
      id: 'AwsSolutions-EC23',
      reason:
        `Game clients connect from anywhere on the internet to the game ports ${first}-${last} only (UDP and TCP); ` +
        'no other port is open, and the game server authenticates players with their registration keys.',
    });
    return group;
  }

  /**
   * The controller sidecar and the game, both essential, both mounting the socket volume. The
   * controller depends on the game: ECS reverses dependencies at shutdown, so on StopTask the
   * controller is stopped first and can send the game its `shutdown` notice while it still runs.
   */
  private addContainers(gameImage: string): { controller: ecs.ContainerDefinition; game: ecs.ContainerDefinition } {
    // Non-blocking: a slow log stream must never stall the game loop or the sidecar.
    const logging = (streamPrefix: string) =>
      ecs.LogDrivers.awsLogs({
        logGroup: this.logGroup,
        streamPrefix,
        mode: ecs.AwsLogDriverMode.NON_BLOCKING,
        maxBufferSize: Size.mebibytes(25),
      });
    const socketMount: ecs.MountPoint = {
      sourceVolume: fleetContract.socketVolume.name,
      containerPath: fleetContract.socketVolume.containerPath,
      readOnly: false,
    };
    // No environment here: the spawner passes every variable per room as an override.
    const controller = this.taskDefinition.addContainer('Controller', {
      containerName: fleetContract.controllerContainer,
      // Staged at synth (no Docker needed); built and pushed by `cdk deploy`, for the task's
      // architecture whatever machine deploys.
      image: ecs.ContainerImage.fromAsset(repoRoot, {
        file: controllerDockerfile,
        exclude: dockerIgnorePatterns(controllerDockerfile),
        ignoreMode: IgnoreMode.DOCKER,
        platform: taskArchitecture.image,
      }),
      essential: true,
      stopTimeout: Duration.seconds(taskStopTimeouts.controllerS),
      logging: logging(fleetContract.controllerContainer),
      // The one secret of the task definition, the controller's only: DescribeTasks and
      // DescribeTaskDefinition show its ARN, never its value. CDK grants the execution role
      // GetSecretValue on exactly this secret.
      secrets: { [envelopeKeyVariable]: ecs.Secret.fromSecretsManager(this.envelopeKey) },
    });
    controller.addMountPoints(socketMount);
    const game = this.taskDefinition.addContainer('Game', {
      containerName: fleetContract.gameContainer,
      image: this.gameImage(gameImage),
      essential: true,
      stopTimeout: Duration.seconds(taskStopTimeouts.gameS),
      logging: logging(fleetContract.gameContainer),
      // In awsvpc mode these document the ports; the security group is what opens them.
      portMappings: this.gamePorts.flatMap((port) => [
        { containerPort: port, protocol: ecs.Protocol.UDP },
        { containerPort: port, protocol: ecs.Protocol.TCP },
      ]),
    });
    game.addMountPoints(socketMount);
    // The game starts first: it connects to the socket the controller binds later (ZeroMQ
    // retries the connect and queues the game's first calls, `inited` included, until then).
    controller.addContainerDependencies({ container: game, condition: ecs.ContainerDependencyCondition.START });
    return { controller, game };
  }

  /**
   * 64 alphanumerics generated by Secrets Manager; sealing and opening derive the AES-256 key
   * from them with HKDF, so no custom resource has to make a binary key at deploy.
   */
  private newEnvelopeKey(namePrefix: string): secretsmanager.Secret {
    const secret = new secretsmanager.Secret(this, 'SidecarEnvelopeKey', {
      description: `${namePrefix}: key the game server tasks' sidecar secrets are sealed under`,
      generateSecretString: { passwordLength: 64, excludePunctuation: true, includeSpace: false },
    });
    Validations.of(secret).acknowledge({
      id: 'AwsSolutions-SMG4',
      reason:
        'Rotation is by hand (docs/operations.md): a Lambda rotation would fail the game server tasks that start ' +
        'while spawning functions still hold the previous key; the key never leaves the platform and its tasks.',
    });
    return secret;
  }

  /**
   * May read the sidecar envelope key (GetSecretValue on that secret only), for a function that
   * starts game servers. Sets SIDECAR_ENVELOPE_KEY_SECRET_ARN (core/infra/config.ts).
   */
  grantEnvelopeKey(role: iam.Role): Readonly<Record<string, string>> {
    iam.Grant.addToPrincipal({
      grantee: role,
      actions: ['secretsmanager:GetSecretValue'],
      resourceArns: [this.envelopeKey.secretArn],
    });
    return { SIDECAR_ENVELOPE_KEY_SECRET_ARN: this.envelopeKey.secretArn };
  }

  /**
   * A private ECR image (`<account>.dkr.ecr.<region>.amazonaws.com/<name>[:tag|@digest]`) gets
   * pull permission on its repository for the execution role; any other name is pulled as is
   * (a public registry).
   */
  private gameImage(name: string): ecs.ContainerImage {
    const pullable = ecrRepositoryOf(name);
    if (pullable) this.pullableRepositories.push(pullable);
    const match =
      /^(\d{12})\.dkr\.ecr\.([a-z0-9-]+)\.amazonaws\.com(\.cn)?\/([a-z0-9._/-]+?)(?::([\w][\w.-]{0,127})|@(sha256:[a-f0-9]{64}))?$/.exec(
        name,
      );
    if (!match) return ecs.ContainerImage.fromRegistry(name);
    const [, account, region, china, repositoryName, tag, digest] = match;
    const repository = ecr.Repository.fromRepositoryAttributes(this, 'GameImageRepository', {
      repositoryArn: `arn:${china ? 'aws-cn' : 'aws'}:ecr:${region}:${account}:repository/${repositoryName}`,
      repositoryName: repositoryName!,
    });
    return ecs.ContainerImage.fromEcrRepository(repository, digest ?? tag ?? 'latest');
  }

  /** ARN pattern of every revision of the game server task definition. */
  get taskDefinitionFamilyArn(): string {
    return `arn:${Aws.PARTITION}:ecs:${Aws.REGION}:${Aws.ACCOUNT_ID}:task-definition/${this.family}:*`;
  }

  /** ARN pattern of every task of the cluster (task ids are only known at run time). */
  get tasksArn(): string {
    return tasksArnOf(this.clusterName);
  }

  /** ARN patterns of every task of the fleet's cluster and of each host cluster. */
  get tasksArns(): string[] {
    return this.clusterNames.map(tasksArnOf);
  }

  /** The `ecs:cluster` condition: the fleet's cluster or a host cluster. */
  get inClusters(): { ArnEquals: Record<string, string | string[]> } {
    const arns = [
      this.cluster.clusterArn,
      ...this.clusterNames
        .slice(1)
        .map((name) => `arn:${Aws.PARTITION}:ecs:${Aws.REGION}:${Aws.ACCOUNT_ID}:cluster/${name}`),
    ];
    return { ArnEquals: { 'ecs:cluster': arns.length === 1 ? (arns[0] as string) : arns } };
  }

  /** One cdk-nag acknowledgement per task ARN pattern (cdk-nag names each wildcard resource). */
  acknowledgeTasks(role: iam.Role, reason: (cluster: string) => string): void {
    for (const name of this.clusterNames) {
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagArn(tasksArnOf(name))}]`,
        reason: reason(name),
      });
    }
  }

  /**
   * May issue room-scoped sidecar sessions: sts:AssumeRole on the sidecar role, and the role's
   * trust names this function's role (and no one else's). Sets SIDECAR_ROLE_ARN and
   * QUEUE_ARN_CONTROLLER_REQUESTS (core/infra/config.ts).
   */
  grantSidecarCredentials(role: iam.Role): Readonly<Record<string, string>> {
    const trusted = new iam.ArnPrincipal(role.roleArn);
    // Created with its first issuer: a role's trust cannot start empty.
    if (!this.sidecarSessions) this.sidecarSessions = this.newSidecarRole(trusted);
    else
      this.sidecarSessions.assumeRolePolicy?.addStatements(
        new iam.PolicyStatement({ actions: ['sts:AssumeRole'], principals: [trusted] }),
      );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: [this.sidecarSessions.roleArn] }),
    );
    return { SIDECAR_ROLE_ARN: this.sidecarSessions.roleArn, QUEUE_ARN_CONTROLLER_REQUESTS: this.requestQueueArn };
  }

  /** Assumed per room by the platform (never by ECS) with a session policy for that room. */
  get sidecarRole(): iam.Role {
    if (!this.sidecarSessions) throw new Error('No function issues sidecar sessions (grantSidecarCredentials).');
    return this.sidecarSessions;
  }

  /**
   * No task role: ECS hands a task role's credentials to every container of the task, the
   * game's included. The sidecar gets a session of this role instead, issued per room by the
   * platform with a session policy that narrows it to that room's reply queue
   * (core/gameservers/sidecar-credentials.ts), and passed to the controller container only.
   * Its trust names exactly the functions that issue sessions.
   */
  private newSidecarRole(firstIssuer: iam.IPrincipal): iam.Role {
    const role = new iam.Role(this, 'SidecarRole', {
      assumedBy: firstIssuer,
      description: 'Roomkeeper controller sidecar (assumed per room by the platform, with a session policy)',
      maxSessionDuration: Duration.hours(1),
    });
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.requestQueueArn] }),
    );
    const replyQueues = `arn:${Aws.PARTITION}:sqs:${Aws.REGION}:${Aws.ACCOUNT_ID}:${this.replyQueuePrefix}*`;
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        // SendMessage: a standby server's answer to `assign` on its assign queue (`<reply queue>-assign`).
        actions: [
          'sqs:CreateQueue',
          'sqs:GetQueueUrl',
          'sqs:ReceiveMessage',
          'sqs:DeleteMessage',
          'sqs:DeleteQueue',
          'sqs:SendMessage',
        ],
        resources: [replyQueues],
      }),
    );
    Validations.of(role).acknowledge({
      id: `AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:sqs:<AWS::Region>:<AWS::AccountId>:${this.replyQueuePrefix}*]`,
      reason:
        "The role is only ever assumed with a session policy naming one room's reply and assign queues; the role itself covers " +
        `the queues named ${this.replyQueuePrefix}* of this deployment, as room ids are only known at run time.`,
    });
    return role;
  }

  /** Spawn timing for Fargate and the ports each server may use (core/infra/config.ts), for every function. */
  get limitsEnvironment(): Readonly<Record<string, string>> {
    return {
      CREATE_WAIT_S: String(ecsSpawnTiming.createWaitS),
      SPAWN_POLL_AFTER_S: String(ecsSpawnTiming.pollAfterS),
      DEFAULT_SPAWN_TIMEOUT_S: String(ecsSpawnTiming.defaultSpawnTimeoutS),
      FLEET_GAME_PORTS: String(this.gamePorts.length),
      FLEET_ECR_REPOSITORIES: this.pullableRepositories.join(','),
    };
  }

  /** What the spawner reads (core/infra/config.ts): cluster, task definition, network, controller container. */
  get spawnerEnvironment(): Readonly<Record<string, string>> {
    return {
      [env.spawner]: 'ecs',
      [env.cluster]: this.cluster.clusterName,
      [env.taskDefinition]: this.taskDefinition.taskDefinitionArn,
      [env.subnets]: this.vpc.publicSubnets.map((subnet) => subnet.subnetId).join(','),
      [env.securityGroups]: this.securityGroup.securityGroupId,
      [env.controllerContainer]: fleetContract.controllerContainer,
    };
  }

  /** Lets `role` hand the tasks' execution role to ECS, and to nothing else. */
  private grantPassExecutionRole(role: iam.Role): void {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['iam:PassRole'],
        resources: [this.executionRole.roleArn],
        conditions: { StringEquals: { 'iam:PassedToService': 'ecs-tasks.amazonaws.com' } },
      }),
    );
  }

  /**
   * May register a task definition revision per configuration (core/gameservers/ecs-task-definitions.ts):
   * ecs:DescribeTaskDefinition and ecs:RegisterTaskDefinition (neither supports resource-level
   * permissions), and iam:PassRole on exactly the execution role, to ECS tasks only (the
   * revisions keep it; tasks have no task role). Sets ECS_TASK_DEFINITION, the template revision.
   */
  grantTaskDefinitions(role: iam.Role): Readonly<Record<string, string>> {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ecs:DescribeTaskDefinition', 'ecs:RegisterTaskDefinition'],
        resources: ['*'],
      }),
    );
    this.grantPassExecutionRole(role);
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ecs:DescribeTaskDefinition and ecs:RegisterTaskDefinition support no resource-level permissions; the ' +
        "revisions registered copy the fleet's task definition and may only pass its execution role.",
    });
    return { [env.taskDefinition]: this.taskDefinition.taskDefinitionArn };
  }

  /**
   * May find where players reach a task (core/gameservers/ecs-task-address.ts): ecs:DescribeTasks
   * on tasks of this cluster, and ec2:DescribeNetworkInterfaces (for the task ENI's public IPv4),
   * which supports no resource-level permissions. Sets ECS_CLUSTER.
   */
  grantServerLookup(role: iam.Role): Readonly<Record<string, string>> {
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['ecs:DescribeTasks'],
        resources: this.tasksArns,
        conditions: this.inClusters,
      }),
    );
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['ec2:DescribeNetworkInterfaces'], resources: ['*'] }),
    );
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason:
        'ec2:DescribeNetworkInterfaces supports no resource-level permissions; it is read-only and used to learn a ' +
        "game server task's public IPv4.",
    });
    this.acknowledgeTasks(
      role,
      (cluster) => `Describes game server tasks, whose ids are only known at run time, of the ${cluster} cluster only.`,
    );
    return { [env.cluster]: this.cluster.clusterName };
  }

  /**
   * `stop`: StopTask on tasks of this cluster. `run`: that, and RunTask on this task
   * definition family in this cluster only, tagging the tasks it starts (RunTask with `tags`
   * needs ecs:TagResource), and handing ECS exactly the execution role (tasks have no task role).
   */
  grantSpawner(role: iam.Role, access: 'run' | 'stop'): void {
    const inCluster = this.inClusters;
    role.addToPrincipalPolicy(
      new iam.PolicyStatement({ actions: ['ecs:StopTask'], resources: this.tasksArns, conditions: inCluster }),
    );
    if (access === 'run') {
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['ecs:RunTask'],
          resources: [this.taskDefinitionFamilyArn],
          conditions: inCluster,
        }),
      );
      role.addToPrincipalPolicy(
        new iam.PolicyStatement({
          actions: ['ecs:TagResource'],
          resources: this.tasksArns,
          conditions: { StringEquals: { 'ecs:CreateAction': 'RunTask' } },
        }),
      );
      this.grantPassExecutionRole(role);
      Validations.of(role).acknowledge({
        id: `AwsSolutions-IAM5[Resource::${nagArn(this.taskDefinitionFamilyArn)}]`,
        reason:
          `RunTask on any revision of the ${this.family} family only (each deployment registers a new revision), ` +
          'and only in the game server cluster (ecs:cluster condition).',
      });
    }
    this.acknowledgeTasks(
      role,
      (cluster) =>
        (access === 'run'
          ? 'Tags the game server tasks RunTask starts (ecs:CreateAction condition) and stops them'
          : 'Stops game server tasks') +
        `; task ids are only known at run time, and the ARN is limited to tasks of the ${cluster} cluster.`,
    );
  }
}

function tasksArnOf(cluster: string): string {
  return `arn:${Aws.PARTITION}:ecs:${Aws.REGION}:${Aws.ACCOUNT_ID}:task/${cluster}/*`;
}

/** How cdk-nag writes an ARN built from the pseudo parameters in a finding id. */
export function nagArn(arn: string): string {
  return arn
    .replace(Aws.PARTITION, '<AWS::Partition>')
    .replace(Aws.REGION, '<AWS::Region>')
    .replace(Aws.ACCOUNT_ID, '<AWS::AccountId>');
}
