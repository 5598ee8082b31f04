import { PlatformError } from '../errors';

export class GameConfigurationNotFoundError extends PlatformError {
  override readonly name = 'GameConfigurationNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(
    readonly gameId: string,
    readonly version: string,
  ) {
    super(`No game server configuration for ${gameId} version ${version}.`);
  }
}

export class SpawnFailedError extends PlatformError {
  override readonly name = 'SpawnFailedError';
  readonly code = 'SPAWN_FAILED';
}

export class SpawnTimeoutError extends PlatformError {
  override readonly name = 'SpawnTimeoutError';
  readonly code = 'SPAWN_TIMEOUT';
}

export class NoHealthyHostError extends PlatformError {
  override readonly name: string = 'NoHealthyHostError';
  readonly code = 'NO_HEALTHY_HOST';
}

/** The host placement chose could not take the server when its slot was written: the next one is tried. */
export class HostRefusedError extends NoHealthyHostError {
  override readonly name = 'HostRefusedError';
}

/**
 * `inited` arrived before the address players reach was known (an ECS task whose placement is
 * not recorded yet, or whose interface has no public IP yet): retried, never answered.
 */
export class ServerAddressPendingError extends Error {
  override readonly name = 'ServerAddressPendingError';
  constructor(readonly roomId: string) {
    super(`The game server address of room ${roomId} is not known yet; the inited will be retried.`);
  }
}

/**
 * ECS or EC2 throttled the address lookup of an `inited`: the message goes back to the queue
 * for a few seconds at once. Retrying in place would only spend the bucket that is refilling,
 * and it says nothing about the heartbeat pipeline.
 */
export class ServerAddressThrottledError extends Error {
  override readonly name = 'ServerAddressThrottledError';
  constructor(
    readonly roomId: string,
    options: { cause: unknown },
  ) {
    super(`ECS or EC2 throttled the address lookup of room ${roomId}; the inited will be retried.`, options);
  }
}

/**
 * A local-fleet configuration whose `binary` this machine cannot start: refused when it is
 * put, not later as a `crashed` room (core/gameservers/local-binary.ts).
 */
export class GameConfigurationBinaryError extends PlatformError {
  override readonly name = 'GameConfigurationBinaryError';
  readonly code = 'BAD_REQUEST';
  constructor(
    readonly binary: string | undefined,
    why: string,
  ) {
    super(`The local fleet cannot start this configuration: ${why}.`, {
      details: { fields: [{ field: 'body.binary', message: why }] },
    });
  }
}
