import {
  hoursPerMonth,
  monthlyCost,
  resourcesOf,
  runsPerHour,
  type PriceTable,
  type StackResources,
  type TemplateJson,
  type Workload,
} from '../../../scripts/cost-model/model';

/** A template with one of everything the model counts, shaped as CDK writes it. */
const template: TemplateJson = {
  Resources: {
    RouteFn: { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 1024, Timeout: 29, Architectures: ['arm64'] } },
    ConsumerFn: { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 512, Architectures: ['arm64'] } },
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
      Properties: { Cpu: '1024', Memory: '2048', RuntimePlatform: { CpuArchitecture: 'X86_64' } },
    },
    Cluster: {
      Type: 'AWS::ECS::Cluster',
      Properties: { ClusterSettings: [{ Name: 'containerInsights', Value: 'enabled' }] },
    },
    Alarm1: { Type: 'AWS::CloudWatch::Alarm' },
    Alarm2: { Type: 'AWS::CloudWatch::Alarm' },
    Dashboard: { Type: 'AWS::CloudWatch::Dashboard' },
    Secret: { Type: 'AWS::SecretsManager::Secret' },
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
  cloudwatch: { alarmMonth: 0.1, dashboardMonth: 3, metricMonth: 0.3, logsIngestedGb: 0.5, logsStoredGbMonth: 0.03 },
  xrayPerMillionTraces: 5,
  secretsManager: { secretMonth: 0.4, per10kCalls: 0.05 },
  dataOutGb: 0.09,
};

/** A workload where most terms are zero, so a line of the bill shows one effect at a time. */
const quiet: Workload = {
  playersPerRoom: 10,
  sessionMinutes: 30,
  roomOverheadMinutes: 0,
  requestsPerSession: 0,
  routeDurationMs: 0,
  createHoldS: 0,
  heartbeatIntervalS: 2,
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
  containerInsightsMetrics: 0,
  storedGb: 0,
  bytesPerPlayerSecond: 0,
  secretReadsPerRoom: 0,
  xraySampledShare: 0,
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

  it('counts queues, tables, tasks, alarms and the rest', () => {
    expect(resources).toMatchObject({
      queues: { fifo: 1, standard: 1 },
      tables: 1,
      pointInTimeRecovery: true,
      tasks: [{ logicalId: 'Task', vcpu: 1, memoryGB: 2, arm: false }],
      alarms: 2,
      dashboards: 1,
      secrets: 1,
      logGroups: 1,
      containerInsights: true,
      schedulesPerHour: [60],
    });
  });

  it('reads schedule rates', () => {
    expect([runsPerHour('rate(1 minute)'), runsPerHour('rate(5 minutes)'), runsPerHour('rate(2 hours)')]).toEqual([
      60, 12, 0.5,
    ]);
    expect(runsPerHour('cron(0 * * * ? *)')).toBeUndefined();
  });
});

describe('monthlyCost', () => {
  const resources: StackResources = resourcesOf(template);

  it('prices the idle stack: the secret, alarms, dashboard and the sweeper, no task', () => {
    const idle = monthlyCost(resources, prices, { ...quiet, sweeperDurationMs: 1000 }, 0);
    expect(idle.rooms).toBe(0);
    expect(idle.byService.Fargate).toBe(0);
    expect(idle.byService['Secrets Manager']).toBeCloseTo(0.4, 10);
    expect(idle.byService.CloudWatch).toBeCloseTo(2 * 0.1 + 3, 10);
    // 60 runs an hour for 730 h, 1 s at 0.25 GB each, plus the requests.
    const sweeps = 60 * hoursPerMonth;
    expect(idle.byService.Lambda).toBeCloseTo((sweeps / 1e6) * 0.2 + sweeps * 0.25 * 0.00001, 10);
    expect(idle.total).toBeCloseTo(idle.platform, 10);
  });

  it('runs one task per room for the session plus the overhead, with a public address', () => {
    const cost = monthlyCost(resources, prices, { ...quiet, roomOverheadMinutes: 3 }, 1000);
    expect(cost.rooms).toBe(100);
    const taskHours = 100 * hoursPerMonth * (33 / 30);
    expect(cost.byService.Fargate).toBeCloseTo(taskHours * (1 * 0.04 + 2 * 0.005), 6);
    expect(cost.byService['Public IPv4']).toBeCloseTo(taskHours * 0.005, 6);
    expect(cost.roomsStartedPerMonth).toBeCloseTo((1000 * hoursPerMonth * 60) / 30 / 10, 6);
  });

  it('writes the room document once per heartbeat of every running task', () => {
    const cost = monthlyCost(resources, prices, { ...quiet, writesPerHeartbeat: 2 }, 1000);
    const heartbeats = 100 * hoursPerMonth * 1800;
    expect(cost.byService.DynamoDB).toBeCloseTo((heartbeats * 2) / 1e6, 6);
  });

  it('charges an API request, a route invocation and its reads per player call', () => {
    const workload = { ...quiet, requestsPerSession: 4, routeDurationMs: 100, readsPerRequest: 1 };
    const cost = monthlyCost(resources, prices, workload, 1000);
    const requests = ((1000 * hoursPerMonth * 60) / 30) * 4;
    expect(cost.byService['API Gateway']).toBeCloseTo(requests / 1e6, 6);
    expect(cost.byService.DynamoDB).toBeCloseTo((requests * 0.1) / 1e6, 6);
    // The sweeper's runs and the consumer's batches of heartbeats (10 a batch) are invocations too.
    const heartbeatBatches = (100 * hoursPerMonth * 1800) / 10;
    const invocations = requests + 60 * hoursPerMonth + heartbeatBatches;
    expect(cost.byService.Lambda).toBeCloseTo((invocations / 1e6) * 0.2 + requests * 0.1 * 1 * 0.00001, 6);
  });

  it('keeps game traffic apart from the platform cost', () => {
    const cost = monthlyCost(resources, prices, { ...quiet, bytesPerPlayerSecond: 1000 }, 1000);
    const gb = (1000 * hoursPerMonth * 3600 * 1000) / 1e9;
    expect(cost.byService['Data transfer out (game traffic)']).toBeCloseTo(gb * 0.09, 6);
    expect(cost.total - cost.platform).toBeCloseTo(gb * 0.09, 6);
  });

  it('grows linearly with players once the fixed part is set aside', () => {
    const workload = { ...quiet, requestsPerSession: 4, writesPerHeartbeat: 2, roomOverheadMinutes: 2 };
    const idle = monthlyCost(resources, prices, workload, 0).platform;
    const at1k = monthlyCost(resources, prices, workload, 1000).platform - idle;
    const at10k = monthlyCost(resources, prices, workload, 10_000).platform - idle;
    expect(at10k / at1k).toBeCloseTo(10, 1);
  });

  it('refuses a template without a task definition', () => {
    const { Task: _task, ...rest } = template.Resources;
    expect(() => monthlyCost(resourcesOf({ Resources: rest }), prices, quiet, 10)).toThrow(/no task definition/);
  });
});
