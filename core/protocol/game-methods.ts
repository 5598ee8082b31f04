import * as z from 'zod';
import { storableJsonObjectSchema } from './storable-json';

/** The same bound as room settings (core/rooms/schema.ts), kept here so the protocol has no room import. */
const maxSettingsBytes = 4 * 1024;
/** One game → owner message's `data` (core/commands/model.ts keeps the same bound). */
export const maxMessageBytes = 4 * 1024;

/**
 * The game ↔ controller methods of docs/game-server-protocol.md: params and results, one
 * source for the sidecar, the controller-events consumer and the sample game.
 */
/** What a game may hand back as room settings: stored exactly, or refused with -32602. */
const settingsSchema = storableJsonObjectSchema(maxSettingsBytes);

/** Game → controller. */
export const gameMethods = {
  inited: {
    params: z.object({
      settings: settingsSchema.optional(),
      protocol: storableJsonObjectSchema(maxSettingsBytes).optional(),
      /** A server started with `standby=1` accepts the warm pool's protocol: it waits for `assign`. */
      standby: z.boolean().optional(),
    }),
    result: z.object({ status: z.literal('OK') }),
  },
  joined: {
    params: z.object({
      key: z.string().min(1).max(256),
      extend_token: z.string().min(1).max(8192).optional(),
      extend_scopes: z.string().min(1).max(1024).optional(),
    }),
    result: z.object({
      access_token: z.string(),
      account: z.string(),
      info: z.record(z.string(), z.unknown()),
      scopes: z.array(z.string()),
    }),
  },
  left: {
    params: z.object({ key: z.string().min(1).max(256) }),
    result: z.object({ status: z.literal('OK') }),
  },
} as const;

/**
 * Game → controller, forwarded without waiting for the platform: the sidecar answers (when
 * called with an id) once SQS took it.
 */
export const gameNotifications = {
  /** A message for the room's owner (`GET /v1/rooms/{roomId}/messages`). */
  message: {
    params: z.object({ data: storableJsonObjectSchema(maxMessageBytes) }),
    result: z.object({ status: z.literal('OK') }),
  },
} as const;

export type GameMethod = keyof typeof gameMethods;
export const gameMethodNames = Object.keys(gameMethods) as GameMethod[];

export function isGameMethod(method: string): method is GameMethod {
  return Object.hasOwn(gameMethods, method);
}

export type GameMethodParams<M extends GameMethod> = z.output<(typeof gameMethods)[M]['params']>;
export type GameMethodResult<M extends GameMethod> = z.output<(typeof gameMethods)[M]['result']>;

/** Controller → game. */
export const controllerMethods = {
  /**
   * Health probe; anything but `{status:"ok"}` in time and the game is killed as hung. The
   * case is not judged: every other result of the protocol is `"OK"`, and a game that answers
   * `status` the same way is healthy, not hung.
   */
  status: {
    params: z.object({}),
    result: z.object({ status: z.string().refine((status) => status.toLowerCase() === 'ok') }),
  },
  /** Notice that the controller will stop the game (room closed or platform shutdown). */
  shutdown: { params: z.object({ reason: z.string(), graceS: z.number() }), result: z.unknown() },
} as const;
