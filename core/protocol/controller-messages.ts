import { createHash } from 'node:crypto';
import * as z from 'zod';
import { hashRegistrationKey } from '../rooms/registration-keys';
import type { GameMethod } from './game-methods';
import { gameMethods, platformNoticeNames } from './game-methods';
import { rpcErrorSchema, type RpcId } from './jsonrpc';

/**
 * Messages between controller sidecars and the platform over SQS.
 *
 *   sidecar ──(controller-requests.fifo, group = roomId)──► controller-events Lambda
 *   sidecar ◄──(its own reply queue, created at start, deleted at exit)── platform
 *
 * Requests carry a correlation id and the reply queue URL; the consumer answers at most
 * once per correlation id (a redelivered request gets the recorded answer again).
 */
const base = {
  roomId: z.string().min(1).max(64),
  /** The sidecar's clock, for logs only: the platform judges time by its own clock. */
  sentAt: z.iso.datetime(),
  /**
   * The room's arbiter epoch the sidecar was started for (ROOM_EPOCH): a replaced server's
   * messages carry an epoch the room has left, and the platform refuses them. Absent: 1.
   */
  epoch: z.number().int().min(1).optional(),
};

/**
 * A registration key as it crosses a queue: its SHA-256 in lower-case hex
 * (`hashRegistrationKey`), never the key. The request queue is MAC'd, not encrypted, and
 * locally anyone on the machine can read it; a key read there would let its reader present it
 * to the game and be welcomed in the player's seat. A hash gives nothing to present: the
 * sidecar hashes whatever the game hands it, and no preimage of a 256-bit random key is found.
 */
const keyHashSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'a registration key crosses the queue as its SHA-256, 64 lower-case hex digits');

/**
 * Which game request a forwarded `joined` or `left` is: the first 128 bits of the SHA-256 of
 * its JSON-RPC id's JSON encoding (so `1` and `"1"` differ), base64url. A registration key is
 * single use: the platform answers a used key again only to the request that used it, so the
 * identity must be the game's own request, which its retry repeats (docs/game-server-protocol.md),
 * and not the sidecar's correlation id, which is new for every forward. Each room has its own
 * sidecar and game, and the MAC proves the room, so the id alone says "from the same server".
 *
 * @example
 * gameRequestId(7) !== gameRequestId('7'); // true
 */
export function gameRequestId(id: RpcId): string {
  return createHash('sha256').update(JSON.stringify(id), 'utf8').digest().subarray(0, 16).toString('base64url');
}

/** `gameRequestId`'s form; also that of a correlation id (128 random bits, base64url). */
const gameRequestIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{22}$/, 'a game request id is 128 bits, base64url (22 characters)');

/**
 * What the request schema checks of a forwarded `joined` or `left`: the hash, and no clear
 * key beside it. A sidecar of a release that sent `key` is refused here, not served: serving it
 * would keep clear keys on the queue worth reading. The other params are checked by the
 * consumer (`forwardedParams`), which answers -32602 naming the member.
 */
const keyedParamsSchema = z.looseObject({
  keyHash: keyHashSchema,
  key: z.never({ error: 'a registration key never crosses the queue in clear; send keyHash' }).optional(),
});

/** The params of a forwarded `joined` / `left` as the consumer applies them (`key` replaced by `keyHash`). */
export const forwardedParams = {
  joined: gameMethods.joined.params.omit({ key: true }).extend({ keyHash: keyHashSchema }),
  left: gameMethods.left.params.omit({ key: true }).extend({ keyHash: keyHashSchema }),
} as const;

export const failureReasons = [
  'spawn-timeout',
  'inited-refused',
  'hung',
  'crashed',
  'exited',
  'heartbeat-lost',
  /** A message of the room's failed on every delivery and went to the dead-letter queue. */
  'platform-error',
] as const;
export type FailureReason = (typeof failureReasons)[number];

/**
 * The game's request (`gameRequestId`) a forwarded `joined` or `left`, or an `abandoned`, is
 * about. Absent only from a sidecar of the previous release, still running its room through a
 * deploy: the platform then takes the correlation id as the request (each forward is its own
 * request, so such a room's game can repeat nothing but an SQS redelivery).
 */
const gameRequest = gameRequestIdSchema.optional();

const rpcBase = {
  type: z.literal('rpc'),
  ...base,
  correlationId: z.string().min(1).max(128),
  replyTo: z.string().min(1).max(2048),
};

/**
 * What the request schema checks of each method the table forwards to the platform
 * (`gameMethods`): a method added there does not compile until it is declared here.
 */
const forwardedRequestParams = {
  inited: z.unknown(),
  save_state: z.unknown(),
  update_settings: z.unknown(),
  check_deployment: z.unknown(),
  joined: keyedParamsSchema,
  left: keyedParamsSchema,
} as const satisfies Record<GameMethod, z.ZodType>;

/** Methods forwarded as the game sent them (no registration key in them). */
const unkeyedMethods = ['inited', 'save_state', 'update_settings', 'check_deployment'] as const satisfies GameMethod[];
type UnkeyedMethod = (typeof unkeyedMethods)[number];

/** The forward of a method without a registration key: its params as the game sent them. */
const unkeyedRequest = <M extends UnkeyedMethod>(method: M) =>
  z.object({ ...rpcBase, method: z.literal(method), params: forwardedRequestParams[method] });

/** The forward of a method that uses a registration key: it names the game request it is about (`gameRequest`). */
const keyedRequest = <M extends GameMethod>(method: M) =>
  z.object({ ...rpcBase, method: z.literal(method), params: forwardedRequestParams[method], gameRequest });

/**
 * A game JSON-RPC call forwarded for the platform to apply. `joined` and `left` carry the
 * game's params with `key` replaced by `keyHash` (`forwardedCall`); `inited` as the game sent it.
 */
const rpcRequestSchema = z.discriminatedUnion('method', [
  unkeyedRequest('inited'),
  unkeyedRequest('save_state'),
  unkeyedRequest('update_settings'),
  unkeyedRequest('check_deployment'),
  keyedRequest('joined'),
  keyedRequest('left'),
]);

export const controllerRequestSchema = z.discriminatedUnion('type', [
  rpcRequestSchema,
  /**
   * The sidecar gave up waiting for the answer to a forwarded `joined` (the game got -32004),
   * so the player was never welcomed: a confirmation made by that game request is undone. The
   * key travels only as its SHA-256 hash; `correlationId` is the forward's, for deduplication.
   */
  z.object({
    type: z.literal('abandoned'),
    ...base,
    correlationId: z.string().min(1).max(128),
    method: z.literal('joined' satisfies GameMethod),
    keyHash: keyHashSchema,
    gameRequest,
  }),
  /** Liveness and load, every heartbeat interval. */
  z.object({
    type: z.literal('heartbeat'),
    ...base,
    load: z.object({ players: z.number().int().min(0) }).optional(),
  }),
  /** The game ended or was killed; the room is failed (or closed if it ended cleanly after ready). */
  z.object({
    type: z.literal('exited'),
    ...base,
    reason: z.enum(failureReasons),
    exitCode: z.number().int().nullable().optional(),
    signal: z.string().nullable().optional(),
  }),
  /**
   * The game's answer to a platform command (`command` on the reply queue), at most once per
   * `commandId`: the result, or the game's JSON-RPC error (or the sidecar's: timeout, too large).
   */
  z.object({
    type: z.literal('commandResult'),
    ...base,
    commandId: z.string().min(1).max(128),
    result: z.unknown().optional(),
    error: rpcErrorSchema.optional(),
  }),
  /** A game → owner message (the game's `message` notification), for the room's message log. */
  z.object({
    type: z.literal('message'),
    ...base,
    /** 128 random bits; also the FIFO deduplication id, so a redelivery is recognised. */
    messageId: z.string().min(1).max(128),
    /** Checked by the consumer as stored JSON (core/commands/model.ts), never rebuilt here. */
    data: z.unknown(),
  }),
  /**
   * Deployed only: fresh scoped AWS credentials for this sidecar before its current ones
   * expire (role chaining caps them at one hour). Answered with `sidecarCredentialsSchema`.
   */
  z.object({
    type: z.literal('credentials'),
    ...base,
    correlationId: z.string().min(1).max(128),
    replyTo: z.string().min(1).max(2048),
  }),
]);
export type ControllerRequest = z.infer<typeof controllerRequestSchema>;

type RpcRequest = Extract<ControllerRequest, { type: 'rpc' }>;
/** The method, params and game request of one forwarded call (distributed, so each method keeps its params' type). */
export type ForwardedCall = RpcRequest extends infer R
  ? R extends RpcRequest
    ? Omit<R, keyof typeof rpcBase>
    : never
  : never;

/**
 * A game call as the sidecar forwards it: the registration key of `joined` and `left` leaves
 * the sidecar only as its hash; the rest of the params as the game sent them. `params` must be
 * what the method's game schema accepted (the sidecar checks before forwarding); a `key` that
 * is not a string is dropped, and the request schema then refuses the message unsent.
 * `gameRequest` (`gameRequestId`) names the game's request; `inited` carries none.
 *
 * @example
 * forwardedCall('left', { key: 'k' }, r); // { method: 'left', params: { keyHash: '<sha-256 hex of k>' }, gameRequest: r }
 */
export function forwardedCall(method: GameMethod, params: unknown, gameRequest?: string): ForwardedCall {
  if (isUnkeyed(method)) return { method, params };
  const { key, ...rest } = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  return {
    method,
    params: { ...rest, keyHash: typeof key === 'string' ? hashRegistrationKey(key) : '' },
    ...(gameRequest === undefined ? {} : { gameRequest }),
  };
}

const isUnkeyed = (method: GameMethod): method is UnkeyedMethod =>
  (unkeyedMethods as readonly string[]).includes(method);

export const controllerReplySchema = z.discriminatedUnion('type', [
  /** The answer to one forwarded request: `error` set means the game gets a JSON-RPC error. */
  z.object({
    type: z.literal('reply'),
    correlationId: z.string(),
    result: z.unknown().optional(),
    error: rpcErrorSchema.optional(),
  }),
  /** A whitelisted platform → game command, relayed as a JSON-RPC request. */
  z.object({
    type: z.literal('command'),
    commandId: z.string(),
    method: z.string(),
    params: z.record(z.string(), z.unknown()).optional(),
  }),
  /**
   * The platform closed the room for a cost bound (docs/cost-bounds.md): the sidecar ends it
   * as its own bounds do, `reason` being the `shutdown` notice's. Sealed like every message
   * on the reply queue, so nobody but the platform can end a room this way.
   */
  z.object({ type: z.literal('stop'), reason: z.enum(['empty', 'lifetime']) }),
  /**
   * A notice for the game (core/protocol/game-methods.ts `platformNotices`), relayed as a
   * JSON-RPC notification while the room is not ending. Only the table's methods parse.
   */
  z.object({
    type: z.literal('notice'),
    method: z.enum(platformNoticeNames),
    params: z.record(z.string(), z.unknown()),
  }),
]);
export type ControllerReply = z.infer<typeof controllerReplySchema>;

/** Temporary AWS credentials scoped to one room's queues (the `result` of a `credentials` request). */
export const sidecarCredentialsSchema = z.object({
  accessKeyId: z.string().min(1),
  secretAccessKey: z.string().min(1),
  sessionToken: z.string().min(1),
  expiration: z.iso.datetime(),
});
export type SidecarCredentials = z.infer<typeof sidecarCredentialsSchema>;
