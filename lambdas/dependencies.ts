import { randomUUID } from 'node:crypto';
import { ECSClient } from '@aws-sdk/client-ecs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import type { JWK } from 'jose';
import { createAbuseGuard, type AbuseGuard } from '../core/abuse/guard';
import { createTokenSigner, createTokenVerifier, type TokenSigner, type TokenVerifier } from '../core/auth/tokens';
import { GameConfigurationStore } from '../core/gameservers/configuration-store';
import { EcsSpawner } from '../core/gameservers/ecs-spawner';
import type { SidecarPlatformSettings } from '../core/gameservers/sidecar-launch';
import type { Spawner } from '../core/gameservers/spawner';
import { createDocumentClient, createSqsClient } from '../core/infra/aws-clients';
import { config, ConfigInvalidError, type PlatformConfig } from '../core/infra/config';
import { deriveIdempotencyKey } from '../core/idempotency/cipher';
import { IdempotencyStore } from '../core/idempotency/store';
import { RoomStore } from '../core/rooms/store';

/**
 * The adapters every handler uses, built once per process from the configuration (a Lambda
 * cold start, or the local cloud's first request) and shared by all handlers in it.
 */
export interface Platform {
  readonly config: PlatformConfig;
  readonly db: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  readonly rooms: RoomStore;
  readonly gameConfigurations: GameConfigurationStore;
  /** Bans and per-account join/create rate limits: `assertJoinAllowed`, `assertCreateAllowed`. */
  readonly abuse: AbuseGuard;
  /** `Idempotency-Key` records; answers encrypted under a key derived from the signing key. */
  readonly idempotency: IdempotencyStore;
  readonly spawner: Spawner;
  /** Settings every sidecar gets; fails if the controller queue is not configured. */
  sidecarSettings(): SidecarPlatformSettings;
  /** Signs tokens the platform itself issues (game server and joined-player tokens). */
  readonly signToken: TokenSigner;
  /** Verifies tokens the platform issued (a game server's `login_access_token`). */
  readonly verifyPlatformToken: TokenVerifier;
  readonly now: () => Date;
  readonly newId: () => string;
}

let current: Platform | undefined;
let spawnerOverride: ((platform: Omit<Platform, 'spawner'>) => Spawner) | undefined;
let clockOverride: (() => Date) | undefined;

function sidecarSettings(settings: PlatformConfig): SidecarPlatformSettings {
  const queueUrl = settings.queueUrls.controllerRequests;
  if (!queueUrl) throw new ConfigInvalidError(['QUEUE_URL_CONTROLLER_REQUESTS'], 'needed to start game servers');
  return {
    region: settings.region,
    controllerRequestQueueUrl: queueUrl,
    replyQueuePrefix: settings.replyQueuePrefix,
    sqsEndpoint: settings.sqsEndpoint,
    discoveryServices: {},
    ...settings.sidecar,
  };
}

/**
 * The platform's own signing key: inline in the local cloud, from Secrets Manager when
 * deployed (fetched on first use, once per cold start).
 */
function platformTokens(settings: PlatformConfig): {
  sign: TokenSigner;
  verify: TokenVerifier;
  idempotencyKey: () => Promise<Buffer>;
} {
  let loaded: Promise<{ sign: TokenSigner; verify: TokenVerifier; idempotencyKey: Buffer }> | undefined;
  const load = async (): Promise<{ sign: TokenSigner; verify: TokenVerifier; idempotencyKey: Buffer }> => {
    let text = settings.tokenSigningJwk;
    if (!text && settings.tokenSigningJwkSecretArn) {
      const client = new SecretsManagerClient({ region: settings.region });
      text = (await client.send(new GetSecretValueCommand({ SecretId: settings.tokenSigningJwkSecretArn })))
        .SecretString;
      client.destroy();
    }
    if (!text)
      throw new ConfigInvalidError(
        ['TOKEN_SIGNING_JWK', 'TOKEN_SIGNING_JWK_SECRET_ARN'],
        'needed to issue platform tokens',
      );
    let jwk: JWK;
    try {
      jwk = JSON.parse(text) as JWK;
    } catch {
      throw new ConfigInvalidError(['TOKEN_SIGNING_JWK'], 'the signing key is not an Ed25519 private JWK (not JSON)');
    }
    if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.d !== 'string') {
      throw new ConfigInvalidError(['TOKEN_SIGNING_JWK'], 'the signing key is not an Ed25519 private JWK');
    }
    const { d: _private, ...publicJwk } = jwk;
    return {
      sign: createTokenSigner(jwk, settings.auth.issuer),
      // Tokens the platform issued itself (game servers'), checked against the public half of its key.
      verify: createTokenVerifier({ issuer: settings.auth.issuer, jwks: JSON.stringify({ keys: [publicJwk] }) }),
      idempotencyKey: deriveIdempotencyKey(Buffer.from(jwk.d, 'base64url')),
    };
  };
  const get = () => {
    loaded ??= load();
    loaded.catch(() => (loaded = undefined));
    return loaded;
  };
  return {
    sign: async (claims) => (await get()).sign(claims),
    verify: async (token) => (await get()).verify(token),
    idempotencyKey: async () => (await get()).idempotencyKey,
  };
}

function ecsSpawner(settings: PlatformConfig, sidecar: () => SidecarPlatformSettings): Spawner {
  const { cluster, taskDefinition } = settings.ecs;
  if (!cluster || !taskDefinition) {
    return {
      spawn: () =>
        Promise.reject(new ConfigInvalidError(['ECS_CLUSTER', 'ECS_TASK_DEFINITION'], 'needed to spawn on ECS')),
      stop: () => Promise.resolve(),
    };
  }
  return new EcsSpawner(new ECSClient({ region: settings.region }), {
    ...settings.ecs,
    cluster,
    taskDefinition,
    // Read when spawning only: the sweeper stops tasks without knowing the controller queue.
    get sidecar() {
      return sidecar();
    },
  });
}

export function platform(): Platform {
  if (!current) {
    const settings = config();
    const db = createDocumentClient(settings);
    const base: Omit<Platform, 'spawner'> = {
      config: settings,
      db,
      sqs: createSqsClient(settings),
      rooms: new RoomStore(db, settings.tableName),
      gameConfigurations: new GameConfigurationStore(db, settings.tableName),
      abuse: createAbuseGuard(db, settings.tableName, settings.abuse),
      sidecarSettings: () => sidecarSettings(settings),
      ...(() => {
        const tokens = platformTokens(settings);
        return {
          signToken: tokens.sign,
          verifyPlatformToken: tokens.verify,
          idempotency: new IdempotencyStore(db, settings.tableName, tokens.idempotencyKey),
        };
      })(),
      now: () => clockOverride?.() ?? new Date(),
      newId: () => randomUUID(),
    };
    const spawner = spawnerOverride ? spawnerOverride(base) : ecsSpawner(settings, () => sidecarSettings(settings));
    current = { ...base, spawner };
  }
  return current;
}

/**
 * The local cloud and tests run game servers as local processes instead of ECS tasks:
 * the only adapter that differs from the deployed stack.
 */
export function useSpawner(factory: ((platform: Omit<Platform, 'spawner'>) => Spawner) | undefined): void {
  spawnerOverride = factory;
  current = undefined;
}

/** Tests move the platform's clock (expiries judged against `now`); undefined restores the system clock. */
export function useClock(now: (() => Date) | undefined): void {
  clockOverride = now;
}

/** Drop the shared adapters so the next call rebuilds them from a fresh configuration. */
export function resetPlatform(): void {
  current?.db.destroy();
  current?.sqs.destroy();
  current = undefined;
}
