import type { ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import { heartbeatDefaults } from '../../../core/protocol/heartbeat';
import type { CostBoundSettings } from '../constructs/cost-bounds';
import { scaleProfiles, type ScaleName, type ScaleProfile } from './profiles';

/** What the stack builds with: the scale profile's settings, each overridden by an explicit prop. */
export interface ScaleSettings {
  readonly profile: ScaleProfile;
  readonly costBounds: CostBoundSettings;
  readonly throttle: ThrottleSettings;
  readonly spawnRouteThrottle: ThrottleSettings;
  readonly consumerMaxConcurrency: number;
  readonly subnetCidrMask: number;
  readonly tableWarmWritesPerS?: number;
  /** Variables every function gets: the heartbeat cadence, when the profile changes it. */
  readonly functionEnvironment: Readonly<Record<string, string>>;
}

/** The stack props a profile's settings give way to. */
export interface ScaleOverrides {
  readonly scale?: ScaleName;
  readonly costBounds?: CostBoundSettings;
  readonly throttle?: ThrottleSettings;
  readonly spawnRouteThrottle?: ThrottleSettings;
  readonly consumerMaxConcurrency?: number;
}

export function scaleSettings(props: ScaleOverrides): ScaleSettings {
  const profile = scaleProfiles[props.scale ?? '1k'];
  // The sidecars' interval reaches them through the spawning functions' HEARTBEAT_INTERVAL_S
  // (core/gameservers/sidecar-launch.ts); the timeout, in every function that judges silence.
  const heartbeatChanged = profile.heartbeatIntervalS !== heartbeatDefaults.intervalS;
  return {
    profile,
    costBounds: {
      maxRunningServers: profile.maxRunningServers,
      maxServersPerConfiguration: profile.maxServersPerConfiguration,
      ...props.costBounds,
    },
    throttle: props.throttle ?? profile.apiThrottle,
    spawnRouteThrottle: props.spawnRouteThrottle ?? profile.spawnRouteThrottle,
    consumerMaxConcurrency: props.consumerMaxConcurrency ?? profile.consumerMaxConcurrency,
    subnetCidrMask: profile.subnetCidrMask,
    ...(profile.tableWarmWritesPerS !== undefined ? { tableWarmWritesPerS: profile.tableWarmWritesPerS } : {}),
    functionEnvironment: heartbeatChanged
      ? {
          HEARTBEAT_INTERVAL_S: String(profile.heartbeatIntervalS),
          HEARTBEAT_TIMEOUT_S: String(profile.heartbeatTimeoutS),
        }
      : {},
  };
}
