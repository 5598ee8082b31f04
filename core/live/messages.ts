import * as z from 'zod';
import { roomIdSchema } from '../rooms/schema';

/**
 * The live-session socket's frames (docs/live.md): what a client sends and what the platform
 * answers. The local cloud's WebSocket server and the deployed API Gateway WebSocket API carry
 * the same JSON text frames, parsed here once.
 */

/** What may have changed in a room since a change number (`cn` on the room item records each kind's last change). */
export const changeKinds = ['members', 'properties', 'host', 'state', 'servers'] as const;
export type ChangeKind = (typeof changeKinds)[number];

/** At most this long between two taps of one subscription; 0: every change as it comes. */
const maxMinTapIntervalMs = 60_000;

const subscribeFrameSchema = z.strictObject({
  action: z.literal('subscribe'),
  roomId: roomIdSchema,
  /** The last change number the client saw: one tap at once if the room is past it. */
  since: z.number().int().min(0).optional(),
  /** Coalescing: at most one tap per this many milliseconds for this subscription. */
  minTapIntervalMs: z.number().int().min(0).max(maxMinTapIntervalMs).optional(),
});

const unsubscribeFrameSchema = z.strictObject({
  action: z.literal('unsubscribe'),
  roomId: roomIdSchema,
});

/** Keeps the connection (and, for a session's host, its arbiter role) from going silent. */
const pingFrameSchema = z.strictObject({ action: z.literal('ping') });

export const clientFrameSchema = z.discriminatedUnion('action', [
  subscribeFrameSchema,
  unsubscribeFrameSchema,
  pingFrameSchema,
]);
export type ClientFrame = z.infer<typeof clientFrameSchema>;

/** A room changed: which change number it is at, and which kinds changed since the last tap. */
const tapFrameSchema = z.strictObject({
  type: z.literal('tap'),
  roomId: z.string(),
  changeNumber: z.number().int(),
  changes: z.array(z.enum(changeKinds)),
});

/** Why a subscription ended without the client asking. */
export const subscriptionEndReasons = ['removed', 'closed', 'failed', 'host-lost', 'gone'] as const;

const endedFrameSchema = z.strictObject({
  type: z.literal('ended'),
  roomId: z.string(),
  reason: z.enum(subscriptionEndReasons),
  /** The room's last change number, when the room is still there to be read. */
  changeNumber: z.number().int().optional(),
});

const subscribedFrameSchema = z.strictObject({
  type: z.literal('subscribed'),
  roomId: z.string(),
  changeNumber: z.number().int(),
});

const unsubscribedFrameSchema = z.strictObject({ type: z.literal('unsubscribed'), roomId: z.string() });

const pongFrameSchema = z.strictObject({ type: z.literal('pong') });

/**
 * The account was invited to a session (`POST /v1/rooms/{roomId}/invites`): sent on each of
 * its open sockets, whether or not they subscribe to that room. Joining it before `expiresAt`
 * accepts; `DELETE /v1/rooms/{roomId}/members/me` declines.
 */
const inviteFrameSchema = z.strictObject({
  type: z.literal('invite'),
  roomId: z.string(),
  invitedBy: z.string(),
  expiresAt: z.iso.datetime(),
});

const liveErrorCodes = ['BAD_FRAME', 'FORBIDDEN', 'NOT_FOUND', 'TOO_MANY_SUBSCRIPTIONS', 'UNAVAILABLE'] as const;

const errorFrameSchema = z.strictObject({
  type: z.literal('error'),
  code: z.enum(liveErrorCodes),
  message: z.string(),
  roomId: z.string().optional(),
});

export const serverFrameSchema = z.discriminatedUnion('type', [
  tapFrameSchema,
  endedFrameSchema,
  subscribedFrameSchema,
  unsubscribedFrameSchema,
  pongFrameSchema,
  errorFrameSchema,
  inviteFrameSchema,
]);
export type ServerFrame = z.infer<typeof serverFrameSchema>;
