/**
 * What the cost model reads from a synthesized CloudFormation template: the resources that
 * bill, and the deployment's settings as its functions' environments carry them. Pure: the
 * template is handed in.
 */
import { parseConfig } from '../../core/infra/config';

/** A CloudFormation template, as much of it as the model reads. */
export interface TemplateJson {
  readonly Resources: Readonly<
    Record<string, { readonly Type: string; readonly Properties?: Readonly<Record<string, unknown>> }>
  >;
}

export interface FunctionResource {
  readonly logicalId: string;
  readonly memoryMB: number;
  readonly timeoutS: number;
  readonly arm: boolean;
  /** `route`: behind the HTTP API; `consumer`: fed by a queue; `scheduled`: by a rule; `other`: custom resources. */
  readonly role: 'route' | 'consumer' | 'scheduled' | 'other';
  readonly description: string;
}

interface TaskResource {
  readonly logicalId: string;
  readonly vcpu: number;
  readonly memoryGB: number;
  readonly arm: boolean;
  /**
   * The longest a StopTask can keep the task billed: ECS stops containers in reverse
   * dependency order, each for up to its `StopTimeout`, so the longest dependency chain.
   */
  readonly stopS: number;
  /** Secrets Manager secrets ECS reads (GetSecretValue) each time it starts the task. */
  readonly secretsReadAtStart: number;
}

/** The settings that shape the bill, as the deployed functions get them (core/infra/config.ts). */
export interface DeploymentSettings {
  /** How long a create, or a join of a spawning room, holds its function for `inited` (`CREATE_WAIT_S`). */
  readonly createWaitS: number;
  /** The 202's `Retry-After` for a spawning room: how often clients read it (`SPAWN_POLL_AFTER_S`). */
  readonly spawnPollAfterS: number;
  readonly sweepIntervalS: number;
  /** The sidecars' heartbeat interval (`HEARTBEAT_INTERVAL_S`, else the protocol's default). */
  readonly heartbeatIntervalS: number;
  readonly emptyRoomGraceS: number;
  /** A room, standby servers included, is ended this long after its creation. */
  readonly maxLifetimeS: number;
  readonly maxRunningServers: number;
  readonly maxServersPerConfiguration: number;
}

/** What the stack deploys, counted from its template. */
export interface StackResources {
  readonly functions: readonly FunctionResource[];
  readonly queues: { readonly fifo: number; readonly standard: number };
  readonly tables: number;
  readonly pointInTimeRecovery: boolean;
  readonly tasks: readonly TaskResource[];
  readonly alarms: number;
  /** CloudWatch bills an alarm per metric it watches: one, or each metric of a metric-math alarm. */
  readonly alarmMetrics: number;
  readonly dashboards: number;
  readonly secrets: number;
  readonly kmsKeys: number;
  readonly logGroups: number;
  readonly httpApis: number;
  readonly containerInsights: boolean;
  /** VPC flow logs delivered to CloudWatch Logs (vended logs). */
  readonly flowLogs: number;
  /** Container images CDK builds and pushes to its bootstrap ECR repository (`fromAsset`). */
  readonly imageAssets: number;
  /** Rate of each scheduled rule, in runs per hour. */
  readonly schedulesPerHour: readonly number[];
  readonly settings: DeploymentSettings;
}

const defaultLambdaMemoryMB = 128;
const defaultLambdaTimeoutS = 3;
/** ECS ContainerDefinition `stopTimeout`: 30 s on Fargate when unset (ECS API reference). */
const fargateDefaultStopTimeoutS = 30;

/** The value at `path` inside a piece of template JSON, if every step is an object. */
function at(value: unknown, ...path: string[]): unknown {
  let current = value;
  for (const key of path) {
    if (typeof current !== 'object' || current === null) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The logical id a `Ref` or `Fn::GetAtt` points at, if the value is one. */
function referenced(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const v = value as Record<string, unknown>;
  // Pseudo parameters (`AWS::Partition`…) are not resources.
  if (typeof v.Ref === 'string') return v.Ref.startsWith('AWS::') ? undefined : v.Ref;
  const getAtt = v['Fn::GetAtt'];
  if (Array.isArray(getAtt) && typeof getAtt[0] === 'string') return getAtt[0];
  // API Gateway integrations name the function inside an ARN built with Fn::Join.
  const join = v['Fn::Join'];
  if (Array.isArray(join) && Array.isArray(join[1])) {
    for (const part of join[1] as unknown[]) {
      const id = referenced(part);
      if (id) return id;
    }
  }
  return undefined;
}

/** `rate(1 minute)`, `rate(5 minutes)`, `rate(2 hours)` → runs per hour (cron: not modelled). */
export function runsPerHour(expression: string): number | undefined {
  const match = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/.exec(expression);
  if (!match) return undefined;
  const n = Number(match[1]);
  const unit = match[2]!.replace(/s$/, '');
  return unit === 'minute' ? 60 / n : unit === 'hour' ? 1 / n : 1 / (24 * n);
}

type Entries = readonly (readonly [string, TemplateJson['Resources'][string]])[];

function functionsOf(entries: Entries): { functions: FunctionResource[]; schedulesPerHour: number[] } {
  const ofType = (type: string) => entries.filter(([, r]) => r.Type === type);
  // The player API's routes and the queues' consumers; the live sessions' WebSocket API and table
  // stream consumer are not in the model's workload, so their functions count as `other`.
  const webSocketApis = new Set(
    ofType('AWS::ApiGatewayV2::Api')
      .filter(([, r]) => r.Properties?.ProtocolType === 'WEBSOCKET')
      .map(([id]) => id),
  );
  const tables = new Set(
    [...ofType('AWS::DynamoDB::GlobalTable'), ...ofType('AWS::DynamoDB::Table')].map(([id]) => id),
  );
  const routeTargets = new Set(
    ofType('AWS::ApiGatewayV2::Integration')
      .filter(([, r]) => !webSocketApis.has(referenced(r.Properties?.ApiId) ?? ''))
      .map(([, r]) => referenced(r.Properties?.IntegrationUri)),
  );
  const consumerTargets = new Set(
    ofType('AWS::Lambda::EventSourceMapping')
      .filter(([, r]) => !tables.has(referenced(r.Properties?.EventSourceArn) ?? ''))
      .map(([, r]) => referenced(r.Properties?.FunctionName)),
  );
  const scheduledTargets = new Set<string | undefined>();
  const schedulesPerHour: number[] = [];
  for (const [, rule] of ofType('AWS::Events::Rule')) {
    const expression = rule.Properties?.ScheduleExpression;
    if (typeof expression !== 'string') continue;
    const rate = runsPerHour(expression);
    if (rate !== undefined) schedulesPerHour.push(rate);
    for (const target of (rule.Properties?.Targets ?? []) as { Arn: unknown }[]) {
      scheduledTargets.add(referenced(target.Arn));
    }
  }
  const functions = ofType('AWS::Lambda::Function').map(([logicalId, r]): FunctionResource => {
    const p = r.Properties ?? {};
    const role = routeTargets.has(logicalId)
      ? 'route'
      : consumerTargets.has(logicalId)
        ? 'consumer'
        : scheduledTargets.has(logicalId)
          ? 'scheduled'
          : 'other';
    return {
      logicalId,
      memoryMB: typeof p.MemorySize === 'number' ? p.MemorySize : defaultLambdaMemoryMB,
      timeoutS: typeof p.Timeout === 'number' ? p.Timeout : defaultLambdaTimeoutS,
      arm: Array.isArray(p.Architectures) && p.Architectures.includes('arm64'),
      role,
      description: typeof p.Description === 'string' ? p.Description : '',
    };
  });
  return { functions, schedulesPerHour };
}

interface ContainerJson {
  readonly Name?: string;
  readonly StopTimeout?: number;
  readonly DependsOn?: readonly { readonly ContainerName: string }[];
  readonly Secrets?: readonly { readonly ValueFrom: unknown }[];
  readonly Image?: unknown;
}

/** The longest chain of stop timeouts: a container stops only after those that depend on it. */
function stopSecondsOf(containers: readonly ContainerJson[]): number {
  const byName = new Map(containers.map((c) => [c.Name, c]));
  const chain = (container: ContainerJson, seen: ReadonlySet<string | undefined>): number => {
    const own = container.StopTimeout ?? fargateDefaultStopTimeoutS;
    const dependents = containers.filter(
      (c) => !seen.has(c.Name) && (c.DependsOn ?? []).some((d) => d.ContainerName === container.Name),
    );
    return own + Math.max(0, ...dependents.map((d) => chain(d, new Set([...seen, d.Name]))));
  };
  return Math.max(0, ...[...byName.values()].map((c) => chain(c, new Set([c.Name]))));
}

/** Does a container secret's `ValueFrom` name a Secrets Manager secret (not an SSM parameter)? */
function isSecretsManagerSecret(valueFrom: unknown, secretIds: ReadonlySet<string>): boolean {
  const id = referenced(valueFrom);
  if (id !== undefined) return secretIds.has(id);
  return JSON.stringify(valueFrom).includes(':secretsmanager:');
}

function tasksOf(entries: Entries): TaskResource[] {
  const secretIds = new Set(entries.filter(([, r]) => r.Type === 'AWS::SecretsManager::Secret').map(([id]) => id));
  return entries
    .filter(([, r]) => r.Type === 'AWS::ECS::TaskDefinition')
    .map(([logicalId, r]): TaskResource => {
      const p = r.Properties ?? {};
      const containers = (p.ContainerDefinitions ?? []) as ContainerJson[];
      const secrets = new Set(
        containers
          .flatMap((c) => c.Secrets ?? [])
          .filter((s) => isSecretsManagerSecret(s.ValueFrom, secretIds))
          // A JSON key of a secret (`<arn>:key::`) reads the same secret.
          .map((s) => referenced(s.ValueFrom) ?? JSON.stringify(s.ValueFrom).split(':secretsmanager:')[1]),
      );
      return {
        logicalId,
        vcpu: Number(p.Cpu) / 1024,
        memoryGB: Number(p.Memory) / 1024,
        arm: at(p, 'RuntimePlatform', 'CpuArchitecture') === 'ARM64',
        stopS: stopSecondsOf(containers),
        secretsReadAtStart: secrets.size,
      };
    });
}

/** Container images built from a local Dockerfile: CDK names its bootstrap asset repository in them. */
function imageAssetsOf(entries: Entries): number {
  const images = entries
    .filter(([, r]) => r.Type === 'AWS::ECS::TaskDefinition')
    .flatMap(([, r]) => ((r.Properties?.ContainerDefinitions ?? []) as ContainerJson[]).map((c) => c.Image))
    .map((image) => JSON.stringify(image))
    .filter((image) => image.includes('-container-assets-'));
  return new Set(images).size;
}

/** The environment variables the model reads, with the values the functions that set them agree on. */
const settingVariables = [
  'CREATE_WAIT_S',
  'SPAWN_POLL_AFTER_S',
  'SWEEP_INTERVAL_S',
  'HEARTBEAT_INTERVAL_S',
  'EMPTY_ROOM_GRACE_S',
  'MAX_ROOM_LIFETIME_S',
  'MAX_RUNNING_SERVERS',
  'MAX_SERVERS_PER_CONFIGURATION',
] as const;

export class TemplateSettingsConflictError extends Error {
  override readonly name = 'TemplateSettingsConflictError';
  constructor(
    readonly variable: string,
    readonly values: readonly string[],
  ) {
    super(`The template's functions disagree on ${variable} (${values.join(', ')}): the model prices one setting.`);
  }
}

/**
 * The deployment's settings: each variable as the functions that set it have it (a function
 * that does not set it does not use it), parsed with the platform's own schema and defaults.
 */
export function settingsOf(template: TemplateJson): DeploymentSettings {
  const set: Record<string, string> = {};
  for (const variable of settingVariables) {
    const values = new Set<string>();
    for (const resource of Object.values(template.Resources)) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const value = at(resource.Properties, 'Environment', 'Variables', variable);
      if (value !== undefined) values.add(typeof value === 'string' ? value : JSON.stringify(value));
    }
    if (values.size > 1) throw new TemplateSettingsConflictError(variable, [...values]);
    const [value] = values;
    if (value !== undefined) set[variable] = value;
  }
  // The settings the schema requires but the model does not read.
  const config = parseConfig({
    TABLE_NAME: 'cost-model',
    AUTH_ISSUER: 'https://cost-model.invalid/',
    AUTH_JWKS: '{"keys":[]}',
    ...set,
  });
  return {
    createWaitS: config.createWaitS,
    spawnPollAfterS: config.spawnPollAfterS,
    sweepIntervalS: config.sweepIntervalS,
    heartbeatIntervalS: config.heartbeatIntervalS,
    emptyRoomGraceS: config.costBounds.emptyRoomGraceS,
    maxLifetimeS: config.costBounds.maxLifetimeS,
    maxRunningServers: config.costBounds.maxRunningServers,
    maxServersPerConfiguration: config.costBounds.maxServersPerConfiguration,
  };
}

function alarmMetricsOf(entries: Entries): number {
  return entries
    .filter(([, r]) => r.Type === 'AWS::CloudWatch::Alarm')
    .reduce((sum, [, r]) => {
      const metrics = r.Properties?.Metrics;
      if (!Array.isArray(metrics)) return sum + 1;
      return sum + (metrics as { MetricStat?: unknown }[]).filter((m) => m.MetricStat !== undefined).length;
    }, 0);
}

/** Counts what the model prices in a synthesized template. */
export function resourcesOf(template: TemplateJson): StackResources {
  const entries = Object.entries(template.Resources);
  const ofType = (type: string) => entries.filter(([, r]) => r.Type === type);
  const queues = ofType('AWS::SQS::Queue');
  const fifo = queues.filter(([, r]) => r.Properties?.FifoQueue === true).length;
  const tables = [...ofType('AWS::DynamoDB::GlobalTable'), ...ofType('AWS::DynamoDB::Table')];
  const pointInTimeRecovery = tables.some(([, r]) => {
    const p = r.Properties ?? {};
    const replicas = Array.isArray(p.Replicas) ? (p.Replicas as unknown[]) : [];
    return [p, ...replicas].some(
      (owner) => at(owner, 'PointInTimeRecoverySpecification', 'PointInTimeRecoveryEnabled') === true,
    );
  });
  const containerInsights = ofType('AWS::ECS::Cluster').some(([, r]) =>
    ((r.Properties?.ClusterSettings ?? []) as { Name: string; Value: string }[]).some(
      (s) => s.Name === 'containerInsights' && s.Value !== 'disabled',
    ),
  );
  return {
    ...functionsOf(entries),
    queues: { fifo, standard: queues.length - fifo },
    tables: tables.length,
    pointInTimeRecovery,
    tasks: tasksOf(entries),
    alarms: ofType('AWS::CloudWatch::Alarm').length,
    alarmMetrics: alarmMetricsOf(entries),
    dashboards: ofType('AWS::CloudWatch::Dashboard').length,
    secrets: ofType('AWS::SecretsManager::Secret').length,
    kmsKeys: ofType('AWS::KMS::Key').length,
    logGroups: ofType('AWS::Logs::LogGroup').length,
    httpApis: ofType('AWS::ApiGatewayV2::Api').length,
    containerInsights,
    flowLogs: ofType('AWS::EC2::FlowLog').length,
    imageAssets: imageAssetsOf(entries),
    settings: settingsOf(template),
  };
}
