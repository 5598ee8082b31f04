import { randomUUID } from 'node:crypto';
import { ECSClient } from '@aws-sdk/client-ecs';
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { STSClient } from '@aws-sdk/client-sts';
import type { JWK } from 'jose';
import { createAbuseGuard, type AbuseGuard } from '../core/abuse/guard';
import {
  createPlatformTokenVerifier,
  createTokenSigner,
  type PlatformTokenVerifier,
  type TokenSigner,
} from '../core/auth/tokens';
import { GameConfigurationStore } from '../core/gameservers/configuration-store';
import { EcsSpawner } from '../core/gameservers/ecs-spawner';
import { stsSidecarCredentials } from '../core/gameservers/sidecar-credentials';
import type { SidecarPlatformSettings } from '../core/gameservers/sidecar-launch';
import type { Spawner } from '../core/gameservers/spawner';
import { createDocumentClient, createSqsClient } from '../core/infra/aws-clients';
import { config, ConfigInvalidError, type PlatformConfig } from '../core/infra/config';
import type { SidecarCredentials } from '../core/protocol/controller-messages';
import { sidecarKeys, type SidecarKeys } from '../core/protocol/sidecar-channel';
import { deriveIdempotencyKey } from '../core/idempotency/cipher';
import { IdempotencyStore } from '../core/idempotency/store';
import { RoomStore } from '../core/rooms/store';
import { TemplateStore } from '../core/sessions/template-store';

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
  /** Session templates (admin API, local config file); sessions copy their constants at creation. */
  readonly templates: TemplateStore;
  /** Bans and per-account join/create rate limits: `assertJoinAllowed`, `assertCreateAllowed`. */
  readonly abuse: AbuseGuard;
  /** `Idempotency-Key` records; answers encrypted under a key derived from the signing key. */
  readonly idempotency: IdempotencyStore;
  readonly spawner: Spawner;
  /** Settings every sidecar gets; fails if the controller queue is not configured. */
  sidecarSettings(): SidecarPlatformSettings;
  /** Signs tokens the platform itself issues (game server and joined-player tokens; core/auth/token-model.ts). */
  readonly signToken: TokenSigner;
  /** Verifies tokens the platform issued (a game server's `login_access_token`), for one platform audience. */
  readonly verifyPlatformToken: PlatformTokenVerifier;
  /**
   * The keys of one room's sidecar channel (core/protocol/sidecar-channel.ts), derived from
   * the platform's signing key: spawners hand K_room to the sidecar, the consumer checks
   * and seals with it. No extra secret to deploy.
   */
  sidecarKeys(roomId: string): Promise<SidecarKeys>;
  /** Deployed: AWS credentials scoped to one room's queues, for its sidecar. Absent locally. */
  readonly sidecarCredentials?: (roomId: string) => Promise<SidecarCredentials>;
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
interface LoadedTokens {
  sign: TokenSigner;
  verify: PlatformTokenVerifier;
  /** The private scalar `d`: input keying material for the sidecar channel keys. */
  secret: Buffer;
  idempotencyKey: Buffer;
}

function platformTokens(settings: PlatformConfig): {
  sign: TokenSigner;
  verify: PlatformTokenVerifier;
  sidecarKeys: (roomId: string) => Promise<SidecarKeys>;
  idempotencyKey: () => Promise<Buffer>;
} {
  let loaded: Promise<LoadedTokens> | undefined;
  const load = async (): Promise<LoadedTokens> => {
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
      // The platform's own issuer, never the identity provider's: the player and admin API refuse these tokens.
      sign: createTokenSigner(jwk, settings.auth.platformIssuer),
      // Tokens the platform issued itself (game servers'), checked against the public half of its key.
      verify: createPlatformTokenVerifier({
        issuer: settings.auth.platformIssuer,
        jwks: JSON.stringify({ keys: [publicJwk] }),
      }),
      secret: Buffer.from(jwk.d, 'base64url'),
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
    verify: async (token, audience) => (await get()).verify(token, audience),
    sidecarKeys: async (roomId) => sidecarKeys((await get()).secret, roomId),
    idempotencyKey: async () => (await get()).idempotencyKey,
  };
}

function ecsSpawner(
  settings: PlatformConfig,
  sidecar: () => SidecarPlatformSettings,
  secrets: Pick<Platform, 'sidecarKeys' | 'sidecarCredentials'>,
): Spawner {
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
    sidecarKeys: secrets.sidecarKeys,
    sidecarCredentials: secrets.sidecarCredentials,
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
      templates: new TemplateStore(db, settings.tableName),
      abuse: createAbuseGuard(db, settings.tableName, settings.abuse),
      sidecarSettings: () => sidecarSettings(settings),
      ...(() => {
        const tokens = platformTokens(settings);
        return {
          signToken: tokens.sign,
          verifyPlatformToken: tokens.verify,
          sidecarKeys: tokens.sidecarKeys,
          idempotency: new IdempotencyStore(db, settings.tableName, tokens.idempotencyKey),
        };
      })(),
      ...(settings.sidecarRole
        ? {
            sidecarCredentials: stsSidecarCredentials(new STSClient({ region: settings.region }), {
              ...settings.sidecarRole,
              replyQueuePrefix: settings.replyQueuePrefix,
            }),
          }
        : {}),
      now: () => clockOverride?.() ?? new Date(),
      newId: () => randomUUID(),
    };
    const spawner = spawnerOverride
      ? spawnerOverride(base)
      : ecsSpawner(settings, () => sidecarSettings(settings), base);
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
