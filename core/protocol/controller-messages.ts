import * as z from 'zod';
import { hashRegistrationKey } from '../reservations/keys';
import type { GameMethod } from './game-methods';
import { gameMethods } from './game-methods';
import { rpcErrorSchema } from './jsonrpc';

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
};

/**
 * A registration key as it crosses a queue: its SHA-256 in lower-case hex
 * (`hashRegistrationKey`), never the key. The request queue is MAC'd, not encrypted, and
 * locally anyone on the machine can read it; a key read there would let its reader present it
 * to the game and be welcomed in the player's seat. A hash gives nothing to present: the
 * sidecar hashes whatever the game hands it, and no preimage of a 256-bit random key is found.
 */
export const keyHashSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'a registration key crosses the queue as its SHA-256, 64 lower-case hex digits');

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

const rpcBase = {
  type: z.literal('rpc'),
  ...base,
  correlationId: z.string().min(1).max(128),
  replyTo: z.string().min(1).max(2048),
};

/**
 * A game JSON-RPC call forwarded for the platform to apply. `joined` and `left` carry the
 * game's params with `key` replaced by `keyHash` (`forwardedCall`); `inited` as the game sent it.
 */
const rpcRequestSchema = z.discriminatedUnion('method', [
  z.object({ ...rpcBase, method: z.literal('inited'), params: z.unknown() }),
  z.object({ ...rpcBase, method: z.literal('joined'), params: keyedParamsSchema }),
  z.object({ ...rpcBase, method: z.literal('left'), params: keyedParamsSchema }),
]);

export const controllerRequestSchema = z.discriminatedUnion('type', [
  rpcRequestSchema,
  /**
   * The sidecar gave up waiting for the answer to a forwarded `joined` (the game got -32004),
   * so the player was never welcomed: a confirmation made by that request is undone. The key
   * travels only as its SHA-256 hash.
   */
  z.object({
    type: z.literal('abandoned'),
    ...base,
    correlationId: z.string().min(1).max(128),
    method: z.literal('joined'),
    keyHash: keyHashSchema,
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
/** The method and params of one forwarded call (distributed, so each method keeps its params' type). */
export type ForwardedCall = RpcRequest extends infer R
  ? R extends RpcRequest
    ? Pick<R, 'method' | 'params'>
    : never
  : never;

/**
 * A game call as the sidecar forwards it: the registration key of `joined` and `left` leaves
 * the sidecar only as its hash; the rest of the params as the game sent them. `params` must be
 * what the method's game schema accepted (the sidecar checks before forwarding); a `key` that
 * is not a string is dropped, and the request schema then refuses the message unsent.
 *
 * @example
 * forwardedCall('left', { key: 'k' }); // { method: 'left', params: { keyHash: '<sha-256 hex of k>' } }
 */
export function forwardedCall(method: GameMethod, params: unknown): ForwardedCall {
  if (method === 'inited') return { method, params };
  const { key, ...rest } = (typeof params === 'object' && params !== null ? params : {}) as Record<string, unknown>;
  return { method, params: { ...rest, keyHash: typeof key === 'string' ? hashRegistrationKey(key) : '' } };
}

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
