import type { ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import type { LimitId } from './limits';

/**
 * The workload every scale profile is sized for (docs/scale.md "Workload"). Players arrive at
 * the rate that keeps `ccu` players in 30-minute sessions; the busiest minutes of a day bring
 * `peakFactor` times that rate. Figures marked "code" follow the code named; the rest are
 * assumptions docs/scale.md states.
 */
export const workload = {
  playersPerRoom: 8,
  sessionMinutes: 30,
  /** Arrivals in the busiest minutes over the steady rate `ccu / session`. */
  peakFactor: 2.5,
  /** Steady joins per second per concurrent player: one join per session. */
  joinsPerSecondPerCcu: 1 / (30 * 60),
  /**
   * Time a game server runs beyond its session: the Fargate start (about a minute), the
   * empty-room grace (60 s), up to one sweep interval (60 s), and the stop (30 s).
   */
  serverOverheadMinutes: 3.5,
  /** From RunTask to the room reading `ready`: a mid-size image (docs/ecs-fleet.md "Spawn times"). */
  serverStartS: 60,
  /** Time a route's Lambda execution takes (ms). */
  routeDurationMs: 60,
  /** A create holds its execution until `inited` or CREATE_WAIT_S, 5 s on ECS (code: game-server-fleet.ts). */
  createHoldS: 5,
  /** Controller messages a room sends besides heartbeats: `inited`, `exited`, a credential renewal. */
  roomMessages: 3,
  /** Controller messages per player: `joined` and `left` (code). */
  playerMessages: 2,
  /**
   * Consumer time per controller message (ms), as if every message of a batch were applied
   * one after another (the consumer applies a batch's rooms in parallel: this overstates it).
   */
  consumerMsPerMessage: 10,
  /** A room item (≈ 1.4 KB with 8 members) costs 2 WCU per write. */
  roomItemWcu: 2,
  /** Table writes per player (WCU): claim, `joined`, `left` (document and index entries), rate-limit gate, idempotency record. */
  writesPerPlayer: 13,
  /** Table writes per room (WCU): create, placement, ready, end (document and index entries), server slots. */
  writesPerRoom: 24,
  /** The game server task's size: the fleet's 512 CPU units (code: game-server-fleet.ts). */
  taskVcpu: 0.5,
  /** Subnets of the fleet's VPC: one per Availability Zone, three at most (code: game-server-fleet.ts). */
  availabilityZones: 3,
  /** Share of the servers the busiest configuration runs: all of them, one game version. */
  busiestConfigurationShare: 1,
} as const;

export type Workload = typeof workload;

export type ScaleName = '1k' | '10k' | '100k';
export const scaleNames = ['1k', '10k', '100k'] as const satisfies readonly ScaleName[];

/** What one profile sets on the stack; docs/scale.md shows what each one is sized against. */
export interface ScaleProfile {
  readonly name: ScaleName;
  /** The concurrent players the profile is sized for. */
  readonly ccu: number;
  readonly maxRunningServers: number;
  readonly maxServersPerConfiguration: number;
  /** How often each sidecar reports; the heartbeat timeout follows it (five intervals). */
  readonly heartbeatIntervalS: number;
  readonly heartbeatTimeoutS: number;
  /** The most executions the controller-requests consumer runs at once (event source mapping). */
  readonly consumerMaxConcurrency: number;
  /** Prefix length of each game server subnet (one per Availability Zone, in a /16 VPC). */
  readonly subnetCidrMask: number;
  /** Throttle of each route that starts game servers (room creation, matchmaking join). */
  readonly spawnRouteThrottle: Required<ThrottleSettings>;
  /** Stage-wide throttle of the API. */
  readonly apiThrottle: Required<ThrottleSettings>;
  /** Standby servers the profile assumes the busiest configuration keeps warm (its `standby`). */
  readonly warmStandbyServers: number;
  /** Writes a second the table serves from its first minute (DynamoDB warm throughput). @default none set */
  readonly tableWarmWritesPerS?: number;
  /** The quotas to raise before deploying the profile, and to what. */
  readonly quotaRequests: Readonly<Partial<Record<LimitId, number>>>;
}

export const scaleProfiles: Readonly<Record<ScaleName, ScaleProfile>> = {
  '1k': {
    name: '1k',
    ccu: 1_000,
    maxRunningServers: 200,
    maxServersPerConfiguration: 200,
    heartbeatIntervalS: 2,
    heartbeatTimeoutS: 10,
    consumerMaxConcurrency: 20,
    subnetCidrMask: 20,
    spawnRouteThrottle: { rateLimit: 20, burstLimit: 100 },
    apiThrottle: { rateLimit: 500, burstLimit: 1_000 },
    warmStandbyServers: 0,
    quotaRequests: { fargateVcpu: 100 },
  },
  '10k': {
    name: '10k',
    ccu: 10_000,
    maxRunningServers: 2_000,
    maxServersPerConfiguration: 2_000,
    heartbeatIntervalS: 2,
    heartbeatTimeoutS: 10,
    consumerMaxConcurrency: 20,
    subnetCidrMask: 20,
    spawnRouteThrottle: { rateLimit: 20, burstLimit: 100 },
    apiThrottle: { rateLimit: 500, burstLimit: 1_000 },
    warmStandbyServers: 20,
    quotaRequests: { fargateVcpu: 1_000 },
  },
  '100k': {
    name: '100k',
    ccu: 100_000,
    maxRunningServers: 16_000,
    maxServersPerConfiguration: 16_000,
    heartbeatIntervalS: 10,
    heartbeatTimeoutS: 50,
    consumerMaxConcurrency: 100,
    subnetCidrMask: 18,
    spawnRouteThrottle: { rateLimit: 250, burstLimit: 500 },
    apiThrottle: { rateLimit: 4_000, burstLimit: 8_000 },
    warmStandbyServers: 200,
    tableWarmWritesPerS: 10_000,
    quotaRequests: { fargateVcpu: 8_000, networkInterfaces: 16_000 },
  },
};
