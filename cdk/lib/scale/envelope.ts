import { liveRoomShards } from '../../../core/infra/keys';
import { ecsSpawnTiming } from '../constructs/game-server-fleet';
import { playerWait } from './player-wait';
import { awsDefaultLimits, type AwsLimit, type LimitId } from './limits';
import { workload as defaultWorkload, type ScaleProfile, type Workload } from './profiles';

/**
 * The scale envelope: what a number of concurrent players asks of each limit the platform
 * runs into (its own caps, AWS quotas, DynamoDB partitions), given a profile's settings.
 * Pure: docs/scale.md's table, the CDK profiles and their tests all come from here.
 */

/** The traffic `ccu` players make at the workload's peak. */
export interface Traffic {
  readonly ccu: number;
  readonly rooms: number;
  readonly steadyJoinsPerS: number;
  readonly peakJoinsPerS: number;
  readonly steadyStartsPerS: number;
  readonly peakStartsPerS: number;
  /** Servers running: rooms in session, their start and stop overhead, the warm standbys. */
  readonly servers: number;
  readonly controllerMessagesPerS: number;
  readonly apiRequestsPerS: number;
}

export function trafficAt(ccu: number, profile: ScaleProfile, w: Workload = defaultWorkload): Traffic {
  const rooms = ccu / w.playersPerRoom;
  const steadyJoinsPerS = ccu * w.joinsPerSecondPerCcu;
  const peakJoinsPerS = steadyJoinsPerS * w.peakFactor;
  const peakStartsPerS = peakJoinsPerS / w.playersPerRoom;
  const servers = rooms * (1 + w.serverOverheadMinutes / w.sessionMinutes) + profile.warmStandbyServers;
  return {
    ccu,
    rooms,
    steadyJoinsPerS,
    peakJoinsPerS,
    steadyStartsPerS: steadyJoinsPerS / w.playersPerRoom,
    peakStartsPerS,
    servers,
    controllerMessagesPerS:
      servers / profile.heartbeatIntervalS + peakStartsPerS * w.roomMessages + peakJoinsPerS * w.playerMessages,
    apiRequestsPerS: peakJoinsPerS * requestsPerSession(peakJoinsPerS, w),
  };
}

/**
 * A session's API requests: its matchmaking join, its reads of the room while the server
 * starts (the 202's `Retry-After` on ECS), its leave.
 */
function requestsPerSession(joinsPerS: number, w: Workload): number {
  const timing = { createWaitS: ecsSpawnTiming.createWaitS, spawnPollAfterS: ecsSpawnTiming.pollAfterS };
  return 1 + playerWait(timing, w, joinsPerS).polls + 1;
}

/** What the stack does when a limit runs out. */
const edges = {
  capped: '503 `NO_HEALTHY_HOST` with Retry-After; running rooms untouched',
  refusedStart: 'RunTask fails: 503 `NO_HEALTHY_HOST`, the room fails',
  startQueue: 'queue (creates wait up to 22 s; standbys start none), then 503 `NO_HEALTHY_HOST` with Retry-After',
  throttled429: '429 from API Gateway',
  consumerQueue: 'queue in SQS; joins of rooms heard late: 503 `UNAVAILABLE` with Retry-After',
  sendRetry: 'queue at the sidecar (its SDK retries)',
  lambdaThrottled: 'API calls fail (5xx); queue messages wait',
  dynamoThrottled: 'retried; past its deadline a route answers 503 `UNAVAILABLE` with Retry-After',
  dynamoScales: 'scale: on-demand doubles its peak within 30 min; retried meanwhile',
} as const;

type LimitSource = 'profile' | 'aws default' | 'quota request' | 'fixed';

export interface ScaleCheck {
  readonly id: string;
  readonly resource: string;
  readonly demand: number;
  readonly limit: number;
  readonly unit: string;
  readonly limitFrom: LimitSource;
  readonly edge: string;
  /** The page documenting an AWS limit. */
  readonly source?: string;
}

export interface Envelope {
  readonly profile: ScaleProfile;
  readonly traffic: Traffic;
  readonly checks: readonly ScaleCheck[];
  /** Checks whose demand exceeds the limit. */
  readonly breaks: readonly ScaleCheck[];
  /** The check with the least headroom: what runs out first as players grow. */
  readonly firstToRunOut: ScaleCheck;
}

export interface EnvelopeInput {
  readonly ccu: number;
  readonly profile: ScaleProfile;
  /** `requested`: the profile's quota requests granted; `default`: AWS's defaults. */
  readonly quotas: 'default' | 'requested';
  readonly workload?: Workload;
  readonly limits?: Readonly<Record<LimitId, AwsLimit>>;
  /** High-throughput mode on the controller-requests FIFO queue (cdk/lib/constructs/project-queue.ts sets it). */
  readonly highThroughputFifo?: boolean;
}

/** `(limit - demand) / limit`: 0 at the edge, negative past it. */
export function headroom(check: Pick<ScaleCheck, 'demand' | 'limit'>): number {
  return (check.limit - check.demand) / check.limit;
}

export function scaleEnvelope(input: EnvelopeInput): Envelope {
  const context = contextOf(input);
  const checks = [...fleetChecks(context), ...functionChecks(context), ...dynamoChecks(context)];
  const firstToRunOut = checks.reduce((least, check) => (headroom(check) < headroom(least) ? check : least));
  return {
    profile: input.profile,
    traffic: context.traffic,
    checks,
    breaks: checks.filter((check) => check.demand > check.limit),
    firstToRunOut,
  };
}

interface Context {
  readonly profile: ScaleProfile;
  readonly traffic: Traffic;
  readonly w: Workload;
  readonly highThroughputFifo: boolean;
  /** A check against an AWS limit, requested or default. */
  readonly aws: (id: LimitId) => Pick<ScaleCheck, 'limit' | 'limitFrom' | 'source' | 'unit'>;
}

function contextOf(input: EnvelopeInput): Context {
  const limits = input.limits ?? awsDefaultLimits;
  const w = input.workload ?? defaultWorkload;
  const aws = (id: LimitId) => {
    const limit = limits[id];
    const requested = input.quotas === 'requested' ? input.profile.quotaRequests[id] : undefined;
    return requested !== undefined && requested > limit.value
      ? { limit: requested, limitFrom: 'quota request' as const, source: limit.source, unit: limit.unit }
      : {
          limit: limit.value,
          limitFrom: limit.adjustable ? ('aws default' as const) : ('fixed' as const),
          source: limit.source,
          unit: limit.unit,
        };
  };
  return {
    profile: input.profile,
    traffic: trafficAt(input.ccu, input.profile, w),
    w,
    highThroughputFifo: input.highThroughputFifo ?? true,
    aws,
  };
}

/** Addresses usable in one subnet: AWS reserves five of each. */
export function subnetAddresses(cidrMask: number, availabilityZones: number): number {
  return availabilityZones * (2 ** (32 - cidrMask) - 5);
}

function fleetChecks({ profile, traffic, w, aws }: Context): ScaleCheck[] {
  const fromProfile = { limitFrom: 'profile' as const };
  return [
    {
      id: 'runningServers',
      resource: 'Running game servers (`maxRunningServers`)',
      demand: traffic.servers,
      limit: profile.maxRunningServers,
      unit: 'servers',
      ...fromProfile,
      edge: edges.capped,
    },
    {
      id: 'serversPerConfiguration',
      resource: 'Servers of the busiest configuration (`maxServersPerConfiguration`)',
      demand: traffic.servers * w.busiestConfigurationShare,
      limit: profile.maxServersPerConfiguration,
      unit: 'servers',
      ...fromProfile,
      edge: edges.capped,
    },
    {
      id: 'fargateVcpu',
      resource: 'Fargate On-Demand vCPU',
      demand: traffic.servers * w.taskVcpu,
      ...aws('fargateVcpu'),
      edge: edges.refusedStart,
    },
    {
      id: 'networkInterfaces',
      resource: 'Network interfaces (one per task)',
      demand: traffic.servers,
      ...aws('networkInterfaces'),
      edge: edges.refusedStart,
    },
    {
      id: 'subnetAddresses',
      resource: `Subnet addresses (${w.availabilityZones} subnets)`,
      demand: traffic.servers,
      limit: subnetAddresses(profile.subnetCidrMask, w.availabilityZones),
      unit: 'addresses',
      ...fromProfile,
      edge: edges.refusedStart,
    },
    {
      id: 'startRate',
      resource: 'Server starts (RunTask, Fargate launch rate)',
      demand: traffic.peakStartsPerS,
      ...aws('fargateLaunchRate'),
      edge: edges.startQueue,
    },
  ];
}

function functionChecks({ profile, traffic, w, aws, highThroughputFifo }: Context): ScaleCheck[] {
  const consumerExecutions = (traffic.controllerMessagesPerS * w.consumerMsPerMessage) / 1000;
  const executions =
    (traffic.apiRequestsPerS * w.routeDurationMs) / 1000 +
    traffic.peakStartsPerS * w.createHoldS +
    profile.consumerMaxConcurrency +
    2; // the sweeper and the pool keeper
  return [
    {
      id: 'consumerConcurrency',
      resource: 'Controller consumer executions',
      demand: consumerExecutions,
      limit: profile.consumerMaxConcurrency,
      unit: 'executions',
      limitFrom: 'profile',
      edge: edges.consumerQueue,
    },
    {
      id: 'sqsSendMessage',
      resource: 'Controller queue SendMessage (FIFO)',
      demand: traffic.controllerMessagesPerS,
      ...aws(highThroughputFifo ? 'sqsFifoHighThroughputTps' : 'sqsFifoTps'),
      edge: edges.sendRetry,
    },
    {
      id: 'lambdaConcurrency',
      resource: 'Lambda concurrent executions (routes, create holds, consumer, schedules)',
      demand: executions,
      ...aws('lambdaConcurrency'),
      edge: edges.lambdaThrottled,
    },
    {
      id: 'apiThrottle',
      resource: 'API stage throttle',
      demand: traffic.apiRequestsPerS,
      limit: profile.apiThrottle.rateLimit,
      unit: 'requests/s',
      limitFrom: 'profile',
      edge: edges.throttled429,
    },
    {
      id: 'spawnRouteThrottle',
      resource: 'Matchmaking join route throttle (`spawnRouteThrottle`)',
      demand: traffic.peakJoinsPerS,
      limit: profile.spawnRouteThrottle.rateLimit,
      unit: 'requests/s',
      limitFrom: 'profile',
      edge: edges.throttled429,
    },
    {
      id: 'apiGatewayAccount',
      resource: 'API Gateway account throttle',
      demand: traffic.apiRequestsPerS,
      ...aws('apiGatewayRps'),
      edge: edges.throttled429,
    },
  ];
}

function dynamoChecks(context: Context): ScaleCheck[] {
  const { profile, traffic, w, aws } = context;
  const tableWrites =
    (traffic.servers / profile.heartbeatIntervalS) * w.roomItemWcu +
    traffic.peakJoinsPerS * w.writesPerPlayer +
    traffic.peakStartsPerS * w.writesPerRoom;
  const newTable = aws('dynamoNewTableWrites');
  return [
    {
      id: 'tableWrites',
      resource: 'DynamoDB table writes',
      demand: tableWrites,
      ...aws('dynamoTableWrites'),
      edge: edges.dynamoThrottled,
    },
    {
      id: 'newTableWrites',
      resource: 'DynamoDB writes a new table serves at once',
      demand: tableWrites,
      ...(profile.tableWarmWritesPerS !== undefined && profile.tableWarmWritesPerS > newTable.limit
        ? { ...newTable, limit: profile.tableWarmWritesPerS, limitFrom: 'profile' as const }
        : newTable),
      edge: edges.dynamoScales,
    },
    ...hotKeyChecks(context),
  ];
}

/** One partition's load, against DynamoDB's per-partition limits. */
export interface HotKey {
  readonly key: string;
  readonly what: string;
  readonly writes: number;
  readonly reads: number;
}

/**
 * Every partition more than one room writes, at the peak, with every player in one
 * matchmaking bucket and one game version in one region (the worst case for each):
 *
 * - `SERVERS`: each start and each end is one transaction over the two counters and the
 *   room's lease (3 items, 2 WCU each in a transaction; core/gameservers/server-slot-store.ts);
 * - `BUCKET#<bucket>` (the filling pointer): one strongly consistent read per matchmaking join,
 *   one conditional put per room it opens (core/matchmaking/store.ts);
 * - gsi1 `OPEN#<bucket>`: rewritten when `players` or `state` change (claim, `left`; create,
 *   ready, end), never by a heartbeat (it writes `lastHeartbeatAt` only, which no index projects);
 * - gsi2 `LIVE#<game>#<version>#<region>`: projects `changeNumber`, so every non-quiet write
 *   rewrites it (claim, `joined`, `left`, leave; create, placement, ready, end);
 * - gsi3 `SWEEP#<shard>`: keys only, written at create and end, over `liveRoomShards` shards;
 * - `SWEEPER`/`PIPELINE`: at most one report a second per consumer execution (core/rooms/heartbeat-pipeline.ts);
 * - `ROOM#<id>`: its heartbeats and its players' writes;
 * - `ACCOUNT#<account>` gates: bounded by the account's own rate limit (20 joins a minute).
 */
export function hotKeys(traffic: Traffic, profile: ScaleProfile, w: Workload = defaultWorkload): HotKey[] {
  const startsAndEnds = traffic.peakStartsPerS + traffic.steadyStartsPerS;
  return [
    { key: 'SERVERS', what: 'running-server counters and leases', writes: startsAndEnds * 3 * 2, reads: 0 },
    {
      key: 'BUCKET#<bucket>',
      what: 'matchmaking filling pointer',
      writes: traffic.peakStartsPerS,
      reads: traffic.peakJoinsPerS,
    },
    {
      key: 'gsi1 OPEN#<bucket>',
      what: 'matchmaking bucket index',
      writes: traffic.peakJoinsPerS * 2 + traffic.peakStartsPerS * 3,
      reads: 0,
    },
    {
      key: 'gsi2 LIVE#<game>#<version>#<region>',
      what: 'room listing index',
      writes: traffic.peakJoinsPerS * 4 + traffic.peakStartsPerS * 4,
      reads: 0,
    },
    { key: 'gsi3 SWEEP#<shard>', what: "sweeper's index, per shard", writes: startsAndEnds / liveRoomShards, reads: 0 },
    { key: 'SWEEPER/PIPELINE', what: 'heartbeat pipeline report', writes: profile.consumerMaxConcurrency, reads: 0 },
    {
      key: 'ROOM#<id>',
      what: "one room's item",
      // A heartbeat per interval, and a full room of players claiming within the same second.
      writes: w.roomItemWcu / profile.heartbeatIntervalS + w.playersPerRoom * w.roomItemWcu,
      reads: 0,
    },
    { key: 'ACCOUNT#<account>', what: "one account's rate-limit gate", writes: 20 / 60, reads: 0 },
  ];
}

function hotKeyChecks({ profile, traffic, w, aws }: Context): ScaleCheck[] {
  // One page documents both partition limits: docs/scale.md cites it once.
  const partition = (id: LimitId) => ({ ...aws(id), source: undefined });
  return hotKeys(traffic, profile, w).flatMap((hot) => [
    {
      id: `partitionWrites:${hot.key}`,
      resource: `Partition \`${hot.key}\` writes (${hot.what})`,
      demand: hot.writes,
      ...partition('dynamoPartitionWrites'),
      edge: edges.dynamoThrottled,
    },
    ...(hot.reads > 0
      ? [
          {
            id: `partitionReads:${hot.key}`,
            resource: `Partition \`${hot.key}\` reads (${hot.what})`,
            demand: hot.reads,
            ...partition('dynamoPartitionReads'),
            edge: edges.dynamoThrottled,
          },
        ]
      : []),
  ]);
}
