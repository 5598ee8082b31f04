import {
  hoursPerMonth,
  monthlyCost,
  playerWait,
  roomOverhead,
  ScenarioExceedsCapError,
  type PriceTable,
  type Scenario,
  type Workload,
} from '../../../scripts/cost-model/model';
import {
  resourcesOf,
  runsPerHour,
  settingsOf,
  TemplateSettingsConflictError,
  type DeploymentSettings,
  type TemplateJson,
} from '../../../scripts/cost-model/template';
import { heartbeatDefaults } from '../../../core/protocol/heartbeat';

/** The settings the template's functions carry, as the stack sets them. */
const environment = {
  CREATE_WAIT_S: '5',
  SPAWN_POLL_AFTER_S: '2',
  SWEEP_INTERVAL_S: '60',
  HEARTBEAT_INTERVAL_S: '4',
  EMPTY_ROOM_GRACE_S: '90',
  MAX_ROOM_LIFETIME_S: '3600',
  MAX_RUNNING_SERVERS: '500',
  MAX_SERVERS_PER_CONFIGURATION: '400',
};

const secretArn = { Ref: 'EnvelopeKey' };

/** A template with one of everything the model counts, shaped as CDK writes it. */
const template: TemplateJson = {
  Resources: {
    RouteFn: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        MemorySize: 1024,
        Timeout: 29,
        Architectures: ['arm64'],
        Environment: { Variables: { ...environment, TABLE_NAME: { Ref: 'Table' } } },
      },
    },
    ConsumerFn: {
      Type: 'AWS::Lambda::Function',
      Properties: { MemorySize: 512, Architectures: ['arm64'], Environment: { Variables: { CREATE_WAIT_S: '5' } } },
    },
    SweeperFn: {
      Type: 'AWS::Lambda::Function',
      Properties: { MemorySize: 256, Timeout: 50, Architectures: ['arm64'] },
    },
    CustomFn: { Type: 'AWS::Lambda::Function', Properties: {} },
    Integration: {
      Type: 'AWS::ApiGatewayV2::Integration',
      Properties: {
        IntegrationUri: {
          'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':', { 'Fn::GetAtt': ['RouteFn', 'Arn'] }]],
        },
      },
    },
    Mapping: { Type: 'AWS::Lambda::EventSourceMapping', Properties: { FunctionName: { Ref: 'ConsumerFn' } } },
    Schedule: {
      Type: 'AWS::Events::Rule',
      Properties: { ScheduleExpression: 'rate(1 minute)', Targets: [{ Arn: { 'Fn::GetAtt': ['SweeperFn', 'Arn'] } }] },
    },
    Fifo: { Type: 'AWS::SQS::Queue', Properties: { FifoQueue: true } },
    Dlq: { Type: 'AWS::SQS::Queue', Properties: {} },
    Table: {
      Type: 'AWS::DynamoDB::GlobalTable',
      Properties: { Replicas: [{ PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true } }] },
    },
    Task: {
      Type: 'AWS::ECS::TaskDefinition',
      Properties: {
        Cpu: '1024',
        Memory: '2048',
        RuntimePlatform: { CpuArchitecture: 'X86_64' },
        ContainerDefinitions: [
          {
            Name: 'controller',
            Image: {
              'Fn::Sub':
                '${AWS::AccountId}.dkr.ecr.${AWS::Region}.${AWS::URLSuffix}/cdk-hnb659fds-container-assets-x:abc',
            },
            // Two keys of one secret, and a parameter: one Secrets Manager read per start.
            Secrets: [
              { Name: 'A', ValueFrom: { 'Fn::Join': ['', [secretArn, ':a::']] } },
              { Name: 'B', ValueFrom: { 'Fn::Join': ['', [secretArn, ':b::']] } },
              { Name: 'C', ValueFrom: { Ref: 'Parameter' } },
            ],
          },
          {
            Name: 'game',
            Image: 'public.ecr.aws/example/game:1',
            StopTimeout: 10,
            DependsOn: [{ ContainerName: 'controller', Condition: 'START' }],
          },
        ],
      },
    },
    EnvelopeKey: { Type: 'AWS::SecretsManager::Secret' },
    Parameter: { Type: 'AWS::SSM::Parameter' },
    Cluster: {
      Type: 'AWS::ECS::Cluster',
      Properties: { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] },
    },
    Alarm1: { Type: 'AWS::CloudWatch::Alarm' },
    MathAlarm: {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: {
        Metrics: [
          { Id: 'a', MetricStat: {} },
          { Id: 'b', MetricStat: {} },
          { Id: 'e', Expression: 'a+b' },
        ],
      },
    },
    Dashboard: { Type: 'AWS::CloudWatch::Dashboard' },
    Secret: { Type: 'AWS::SecretsManager::Secret' },
    TopicKey: { Type: 'AWS::KMS::Key' },
    FlowLog: {
      Type: 'AWS::EC2::FlowLog',
      Properties: { LogDestinationType: 'cloud-watch-logs', TrafficType: 'REJECT' },
    },
    Logs: { Type: 'AWS::Logs::LogGroup' },
  },
};

/** Round prices, so each line of the bill can be checked by hand. */
const prices: PriceTable = {
  date: 'test',
  sources: [],
  fargate: { x86VcpuHour: 0.04, x86GbHour: 0.005, armVcpuHour: 0.03, armGbHour: 0.004 },
  publicIpv4Hour: 0.005,
  lambda: { perMillionRequests: 0.2, armGbSecond: 0.00001, x86GbSecond: 0.00002 },
  httpApiPerMillion: 1,
  dynamodb: { perMillionWrites: 1, perMillionReads: 0.1, storageGbMonth: 0.25, pitrGbMonth: 0.2 },
  sqs: { standardPerMillion: 0.4, fifoPerMillion: 0.5 },
  cloudwatch: {
    alarmMetricMonth: 0.1,
    dashboardMonth: 3,
    metricMonth: 0.3,
    logsIngestedGb: 0.5,
    vendedLogsGb: 0.5,
    logsStoredGbMonth: 0.03,
  },
  xrayPerMillionTraces: 5,
  secretsManager: { secretMonth: 0.4, per10kCalls: 0.05 },
  kmsKeyMonth: 1,
  ecrStorageGbMonth: 0.1,
  dataOutGb: 0.09,
};

/** A workload where most terms are zero, so a line of the bill shows one effect at a time. */
const quiet: Workload = {
  playersPerRoom: 10,
  sessionMinutes: 30,
  joinsPerSecondPerCcu: 1 / 1800,
  serverStartS: 0,
  leavesPerPlayer: 0,
  routeDurationMs: 0,
  roomMessages: 0,
  playerMessages: 0,
  messagesPerBatch: 10,
  consumerDurationMs: 0,
  writesPerJoin: 0,
  otherWritesPerPlayer: 0,
  writesPerRoom: 0,
  writesPerHeartbeat: 0,
  readsPerRequest: 0,
  sweeperReadsPerRoom: 0,
  sweeperFixedReads: 0,
  sweeperDurationMs: 0,
  replyPollsPerMinute: 0,
  idleConsumerPollsPerMinute: 0,
  logBytesPerRequest: 0,
  logBytesPerTaskMinute: 0,
  logBytesPerSweep: 0,
  flowLogRecordsPerAddressHour: 0,
  flowLogRecordBytes: 0,
  containerInsightsMetrics: 0,
  storedGb: 0,
  imageAssetGb: 0,
  imageVersionsKept: 0,
  bytesPerPlayerSecond: 0,
  functionSecretReadsPerRoom: 0,
  xraySampledShare: 0,
  configurations: 1,
};

const settings: DeploymentSettings = {
  createWaitS: 5,
  spawnPollAfterS: 2,
  sweepIntervalS: 60,
  heartbeatIntervalS: 4,
  emptyRoomGraceS: 90,
  maxLifetimeS: 3600,
  maxRunningServers: 500,
  maxServersPerConfiguration: 400,
};

describe('resourcesOf', () => {
  const resources = resourcesOf(template);

  it('tells functions apart by what invokes them, with their memory and defaults', () => {
    expect(resources.functions.map((f) => [f.logicalId, f.role, f.memoryMB, f.timeoutS, f.arm])).toEqual([
      ['RouteFn', 'route', 1024, 29, true],
      ['ConsumerFn', 'consumer', 512, 3, true],
      ['SweeperFn', 'scheduled', 256, 50, true],
      ['CustomFn', 'other', 128, 3, false],
    ]);
  });

  it('counts queues, tables, alarms by the metrics they watch, secrets, KMS keys, flow logs and image assets', () => {
    expect(resources).toMatchObject({
      queues: { fifo: 1, standard: 1 },
      tables: 1,
      pointInTimeRecovery: true,
      alarms: 2,
      alarmMetrics: 3,
      dashboards: 1,
      secrets: 2,
      kmsKeys: 1,
      flowLogs: 1,
      imageAssets: 1,
      logGroups: 1,
      containerInsights: true,
      schedulesPerHour: [60],
    });
  });

  it('bounds the stop by the containers stopped one after the other, unset timeouts at 30 s', () => {
    // The game (10 s) stops before the controller it depends on (unset: 30 s).
    expect(resources.tasks).toEqual([
      { logicalId: 'Task', vcpu: 1, memoryGB: 2, arm: false, stopS: 40, secretsReadAtStart: 1 },
    ]);
  });

  it('reads schedule rates', () => {
    expect([runsPerHour('rate(1 minute)'), runsPerHour('rate(5 minutes)'), runsPerHour('rate(2 hours)')]).toEqual([
      60, 12, 0.5,
    ]);
    expect(runsPerHour('cron(0 * * * ? *)')).toBeUndefined();
  });
});

describe('settingsOf', () => {
  it("reads the settings from the functions' environments", () => {
    expect(settingsOf(template)).toEqual(settings);
  });

  it("takes the platform's defaults for what no function sets", () => {
    expect(settingsOf({ Resources: { Fn: { Type: 'AWS::Lambda::Function', Properties: {} } } })).toEqual({
      createWaitS: 25,
      spawnPollAfterS: 1,
      sweepIntervalS: 60,
      heartbeatIntervalS: heartbeatDefaults.intervalS,
      emptyRoomGraceS: 60,
      maxLifetimeS: 21_600,
      maxRunningServers: 200,
      maxServersPerConfiguration: 100,
    });
  });

  it('refuses functions that disagree on a setting', () => {
    const conflicting: TemplateJson = {
      Resources: {
        ...template.Resources,
        Other: { Type: 'AWS::Lambda::Function', Properties: { Environment: { Variables: { CREATE_WAIT_S: '25' } } } },
      },
    };
    expect(() => settingsOf(conflicting)).toThrow(TemplateSettingsConflictError);
  });
});

describe('roomOverhead', () => {
  it('adds the start, the empty grace, half a sweep interval and the stop bound', () => {
    expect(roomOverhead(settings, 40, { ...quiet, serverStartS: 50 })).toEqual({
      startS: 50,
      emptyGraceS: 90,
      sweepLagS: 30,
      stopS: 40,
      totalS: 210,
    });
  });
});

describe('playerWait', () => {
  const w = { ...quiet, playersPerRoom: 8, serverStartS: 60 };

  it('holds each join for the create wait, then polls through the rest of the start', () => {
    // All eight arrive at once: 5 s held, then 55 s of polls every 2 s.
    expect(playerWait(settings, w, 1e9)).toEqual({ holdS: 5, polls: 28 });
  });

  it('spares the players who arrive later the part of the start already over', () => {
    // One every 10 s: ready in 60, 50, 40, 30, 20, 10 s; the last two find it ready.
    expect(playerWait(settings, w, 0.1)).toEqual({ holdS: 30 / 8, polls: (28 + 23 + 18 + 13 + 8 + 3) / 8 });
  });

  it('waits for nothing with no players', () => {
    expect(playerWait(settings, w, 0)).toEqual({ holdS: 0, polls: 0 });
  });
});

describe('monthlyCost', () => {
  const resources = resourcesOf(template);
  const scenario = (ccu: number, standbyServers = 0): Scenario => ({ name: 'test', ccu, standbyServers, resources });
  const taskHour = 1 * 0.04 + 2 * 0.005;

  it('prices the idle stack: secrets, KMS key, alarm metrics, dashboard and the sweeper, no task', () => {
    const idle = monthlyCost(scenario(0), prices, { ...quiet, sweeperDurationMs: 1000 });
    expect(idle.rooms).toBe(0);
    expect(idle.byService.Fargate).toBe(0);
    expect(idle.byService['Secrets Manager']).toBeCloseTo(2 * 0.4, 10);
    expect(idle.byService.KMS).toBeCloseTo(1, 10);
    expect(idle.byService.CloudWatch).toBeCloseTo(3 * 0.1 + 3, 10);
    // 60 runs an hour for 730 h, 1 s at 0.25 GB each, plus the requests.
    const sweeps = 60 * hoursPerMonth;
    expect(idle.byService.Lambda).toBeCloseTo((sweeps / 1e6) * 0.2 + sweeps * 0.25 * 0.00001, 10);
    expect(idle.total).toBeCloseTo(idle.platform, 10);
  });

  it('runs one task per room for the session plus the overhead from the settings, with a public address', () => {
    const cost = monthlyCost(scenario(1000), prices, { ...quiet, serverStartS: 50 });
    expect(cost.rooms).toBe(100);
    // 30 minutes of session, 210 s beyond it (50 + 90 + 30 + 40).
    const taskHours = 100 * hoursPerMonth * ((1800 + 210) / 1800);
    expect(cost.byService.Fargate).toBeCloseTo(taskHours * taskHour, 6);
    expect(cost.byService['Public IPv4']).toBeCloseTo(taskHours * 0.005, 6);
    expect(cost.roomsStartedPerMonth).toBeCloseTo((1000 * hoursPerMonth * 60) / 30 / 10, 6);
  });

  it('holds a route function for the template create wait, and bills every poll', () => {
    const workload = { ...quiet, serverStartS: 60, routeDurationMs: 100 };
    const cost = monthlyCost(scenario(1000), prices, workload);
    const sessions = (1000 * hoursPerMonth * 60) / 30;
    const wait = playerWait(settings, workload, 1000 / 1800);
    const requests = sessions * (1 + wait.polls);
    expect(wait.holdS).toBe(5);
    expect(cost.byService['API Gateway']).toBeCloseTo(requests / 1e6, 6);
    // Route functions: 1 GB arm64; the consumer's heartbeat batches and the sweeps are invocations too.
    const heartbeats = (100 * hoursPerMonth * ((1800 + 220) / 1800) * 3600) / 4;
    const invocations = requests + heartbeats / 10 + 60 * hoursPerMonth;
    const routeSeconds = requests * 0.1 + sessions * 5;
    expect(cost.byService.Lambda).toBeCloseTo((invocations / 1e6) * 0.2 + routeSeconds * 1 * 0.00001, 6);
  });

  it("writes the room document once per heartbeat, at the template's interval", () => {
    const cost = monthlyCost(scenario(1000), prices, { ...quiet, writesPerHeartbeat: 2 });
    const taskHours = 100 * hoursPerMonth * ((1800 + 160) / 1800);
    expect(cost.byService.DynamoDB).toBeCloseTo((taskHours * 900 * 2) / 1e6, 6);
  });

  it('runs the standby servers all month, restarting each at its maximum lifetime', () => {
    const without = monthlyCost(scenario(1000), prices, quiet);
    const cost = monthlyCost(scenario(1000, 20), prices, quiet);
    expect(cost.byService.Fargate - without.byService.Fargate).toBeCloseTo(20 * hoursPerMonth * taskHour, 6);
    expect(cost.serversRunning - without.serversRunning).toBeCloseTo(20, 10);
    // ECS reads the envelope key at each of their starts: once an hour (MAX_ROOM_LIFETIME_S).
    const starts = 20 * hoursPerMonth;
    expect(cost.byService['Secrets Manager'] - without.byService['Secrets Manager']).toBeCloseTo(
      (starts / 1e4) * 0.05,
      6,
    );
    expect(cost.standbyCost).toBeCloseTo(cost.platform - without.platform, 6);
  });

  it('bills the flow log of rejected flows, the image in ECR and the secret read at each task start', () => {
    const workload = {
      ...quiet,
      flowLogRecordsPerAddressHour: 100,
      flowLogRecordBytes: 200,
      imageAssetGb: 0.5,
      imageVersionsKept: 2,
    };
    const cost = monthlyCost(scenario(1000), prices, workload);
    const taskHours = 100 * hoursPerMonth * ((1800 + 160) / 1800);
    expect(cost.byService['VPC flow logs']).toBeCloseTo(((taskHours * 100 * 200) / 1e9) * (0.5 + 0.03), 6);
    expect(cost.byService.ECR).toBeCloseTo(1 * 2 * 0.5 * 0.1, 10);
    const starts = cost.roomsStartedPerMonth;
    expect(cost.byService['Secrets Manager']).toBeCloseTo(2 * 0.4 + (starts / 1e4) * 0.05, 6);
  });

  it("refuses a scenario whose servers exceed the template's caps", () => {
    // A room's server runs 1,960 s a 1,800 s session: 5,000 CCU is 500 rooms on 544 servers (500 allowed).
    expect(() => monthlyCost(scenario(5000), prices, { ...quiet, configurations: 2 })).toThrow(
      expect.objectContaining({ name: ScenarioExceedsCapError.name, cap: 'maxRunningServers' }),
    );
    // 4,000 CCU on 436 servers fits the deployment, not one configuration (400 allowed)…
    expect(() => monthlyCost(scenario(4000), prices, quiet)).toThrow(
      expect.objectContaining({ name: ScenarioExceedsCapError.name, cap: 'maxServersPerConfiguration' }),
    );
    // …but does spread over two.
    expect(monthlyCost(scenario(4000), prices, { ...quiet, configurations: 2 }).serversRunning).toBeCloseTo(435.6, 1);
  });

  it('keeps game traffic apart from the platform cost', () => {
    const cost = monthlyCost(scenario(1000), prices, { ...quiet, bytesPerPlayerSecond: 1000 });
    const gb = (1000 * hoursPerMonth * 3600 * 1000) / 1e9;
    expect(cost.byService['Data transfer out (game traffic)']).toBeCloseTo(gb * 0.09, 6);
    expect(cost.total - cost.platform).toBeCloseTo(gb * 0.09, 6);
  });

  it('refuses a template without a task definition', () => {
    const { Task: _task, ...rest } = template.Resources;
    expect(() => monthlyCost({ ...scenario(10), resources: resourcesOf({ Resources: rest }) }, prices, quiet)).toThrow(
      /no task definition/,
    );
  });
});
