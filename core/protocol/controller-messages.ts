import * as z from 'zod';
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

export const controllerRequestSchema = z.discriminatedUnion('type', [
  /** A game JSON-RPC call forwarded for the platform to apply. */
  z.object({
    type: z.literal('rpc'),
    ...base,
    correlationId: z.string().min(1).max(128),
    replyTo: z.string().min(1).max(2048),
    method: z.enum(['inited', 'joined', 'left']),
    params: z.unknown(),
  }),
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
    keyHash: z.string().regex(/^[0-9a-f]{64}$/),
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
