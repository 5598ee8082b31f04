import { scaleNames, scaleProfiles, workload as scaleWorkload, type ScaleName } from '../../cdk/lib/scale/profiles';
import type { PriceTable, Workload } from './model';

/**
 * Public on-demand list prices, US East (N. Virginia), in US dollars, without free tiers,
 * Savings Plans or volume tiers beyond the first. Transcribed on the date below from the AWS
 * pricing pages listed (cross-checked against third-party summaries of the same pages); the
 * build machine has no internet, so re-check them before relying on the figures.
 */
export const usEast1Prices: PriceTable = {
  date: '2026-11-23',
  sources: [
    'https://aws.amazon.com/fargate/pricing/',
    'https://aws.amazon.com/vpc/pricing/ (public IPv4 addresses)',
    'https://aws.amazon.com/lambda/pricing/',
    'https://aws.amazon.com/api-gateway/pricing/ (HTTP APIs)',
    'https://aws.amazon.com/dynamodb/pricing/on-demand/',
    'https://aws.amazon.com/sqs/pricing/',
    'https://aws.amazon.com/cloudwatch/pricing/ (alarms per metric; vended logs for VPC flow logs)',
    'https://aws.amazon.com/xray/pricing/',
    'https://aws.amazon.com/secrets-manager/pricing/',
    'https://aws.amazon.com/kms/pricing/',
    'https://aws.amazon.com/ecr/pricing/',
    'https://aws.amazon.com/ec2/pricing/on-demand/ (data transfer out to the internet)',
  ],
  fargate: { x86VcpuHour: 0.04048, x86GbHour: 0.004445, armVcpuHour: 0.03238, armGbHour: 0.00356 },
  publicIpv4Hour: 0.005,
  lambda: { perMillionRequests: 0.2, armGbSecond: 0.0000133334, x86GbSecond: 0.0000166667 },
  httpApiPerMillion: 1.0,
  dynamodb: { perMillionWrites: 0.625, perMillionReads: 0.125, storageGbMonth: 0.25, pitrGbMonth: 0.2 },
  sqs: { standardPerMillion: 0.4, fifoPerMillion: 0.5 },
  cloudwatch: {
    alarmMetricMonth: 0.1,
    dashboardMonth: 3.0,
    metricMonth: 0.3,
    logsIngestedGb: 0.5,
    vendedLogsGb: 0.5,
    logsStoredGbMonth: 0.03,
  },
  xrayPerMillionTraces: 5.0,
  secretsManager: { secretMonth: 0.4, per10kCalls: 0.05 },
  // A key's first two rotations add $1 a month each; the stack's key rotates yearly.
  kmsKeyMonth: 1.0,
  ecrStorageGbMonth: 0.1,
  dataOutGb: 0.09,
};

/**
 * The workload the docs' figures assume. Players, rooms and sessions are the scale profiles'
 * (cdk/lib/scale/profiles.ts); the settings that shape a room's time and the API's (create
 * wait, empty grace, sweep interval, heartbeat interval, stop timeout, caps) come from each
 * scenario's template; the rest are assumptions, stated in docs/cost-model.md.
 */
export const defaultWorkload: Workload = {
  playersPerRoom: scaleWorkload.playersPerRoom,
  sessionMinutes: scaleWorkload.sessionMinutes,
  joinsPerSecondPerCcu: scaleWorkload.joinsPerSecondPerCcu,
  serverStartS: scaleWorkload.serverStartS,
  leavesPerPlayer: 1,
  routeDurationMs: 60,
  // `inited` and `exited`, and one sidecar credential renewal (sessions last an hour, renewed 15 min early).
  roomMessages: 3,
  playerMessages: 2, // code: `joined` and `left`
  messagesPerBatch: 5,
  consumerDurationMs: 40,
  writesPerJoin: 4, // code: docs/sessions.md, a room of 8 (≈ 1.4 KB): 2 + 2 WCU
  otherWritesPerPlayer: 10, // `joined` and `left` rewrite the document and its 2 index entries (4 each), rate log + idempotency record (1 each)
  writesPerRoom: 12, // create: document + 3 index entries + filling pointer; end: document and index removals
  writesPerHeartbeat: 2, // code: recordHeartbeat rewrites the ≈ 1.4 KB document; no index holds lastHeartbeatAt
  readsPerRequest: 1,
  sweeperReadsPerRoom: 1, // code: one strongly consistent read of each live room (≤ 4 KB) per run
  sweeperFixedReads: 4, // code: 8 gsi3 shard queries, eventually consistent, 0.5 RRU each
  sweeperDurationMs: 300,
  replyPollsPerMinute: 3, // code: the sidecar long-polls its reply queue for 20 s
  idleConsumerPollsPerMinute: 15, // the event source mapping's 5 pollers, 20 s long polls
  logBytesPerRequest: 600, // one JSON line per invocation at INFO, plus the API access log line
  logBytesPerTaskMinute: 1500, // sidecar + game output + Container Insights performance events
  logBytesPerSweep: 800,
  flowLogRecordsPerAddressHour: 300, // background scanning of a public IPv4 address, rejected by the security group
  flowLogRecordBytes: 150, // one default-format (version 2) record
  containerInsightsMetrics: 20,
  storedGb: 1,
  imageAssetGb: 0.1, // the controller image: node:24-slim, its bundle and zeromq, compressed
  imageVersionsKept: 1, // each deploy that changes the controller adds one until `cdk gc` removes it
  bytesPerPlayerSecond: 2000, // 16 kbit/s to each player: a modest action game
  functionSecretReadsPerRoom: 0.05, // each key is read once per execution environment, not per call
  xraySampledShare: 0.05,
  configurations: 1, // every room runs one configuration: its own cap must hold them all
};

/** The columns of the bill: the stack idle with its defaults, then each scale profile deployed as such. */
export const scenarios: readonly {
  readonly name: string;
  readonly scale?: ScaleName;
  readonly ccu: number;
  readonly standbyServers: number;
}[] = [
  { name: 'idle', ccu: 0, standbyServers: 0 },
  ...scaleNames.map((scale) => ({
    name: scale,
    scale,
    ccu: scaleProfiles[scale].ccu,
    standbyServers: scaleProfiles[scale].warmStandbyServers,
  })),
];
