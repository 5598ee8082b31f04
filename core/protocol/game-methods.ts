import * as z from 'zod';
import { protocolHashSchema, protocolSchemaOf } from '../versions/protocol';
import { roomSettingsOverrideChars, taskOverridesBudget } from '../gameservers/task-overrides';
import { storableJsonObjectSchema } from './storable-json';

/** The same bound as room settings (core/rooms/schema.ts), kept here so the protocol has no room import. */
const maxSettingsBytes = 4 * 1024;
/** One game → owner message's `data` (core/commands/model.ts keeps the same bound). */
export const maxMessageBytes = 4 * 1024;

/**
 * What a game may hand back as room settings: stored exactly, or refused with -32602. A
 * `migrateHost` room's replacement server is started with them in its task's launch overrides,
 * so they must fit there as a created room's settings must.
 */
const settingsSchema = storableJsonObjectSchema(maxSettingsBytes).refine(
  (settings) => roomSettingsOverrideChars(settings) <= taskOverridesBudget.roomSettings,
  {
    message:
      `must take at most ${taskOverridesBudget.roomSettings} characters once encoded for a game server's ` +
      'launch (their JSON, encoded again as a JSON string)',
  },
);
const ok = z.object({ status: z.literal('OK') });

/** The most saved state an arbiter keeps (its JSON text), the same bound as the HTTP route's. */
const maxSavedStateBytes = 16 * 1024;

/** Any JSON value whose text fits `maxSavedStateBytes`: stored as text, so any JSON number is kept exactly. */
const savedStateSchema = z.unknown().superRefine((value, ctx) => {
  const text = value === undefined ? undefined : JSON.stringify(value);
  if (text === undefined) ctx.addIssue({ code: 'custom', message: 'must be a JSON value' });
  else if (Buffer.byteLength(text) > maxSavedStateBytes)
    ctx.addIssue({ code: 'custom', message: `must be at most ${maxSavedStateBytes} bytes of JSON` });
});

/**
 * What a replacement server's `inited` answer adds: the state the room's arbiter last saved,
 * and the epoch it was saved in. Absent: the server is the room's first, or nothing was saved.
 */
const restoreSchema = z.object({ epoch: z.number().int().min(1), state: z.unknown() });

/**
 * Who calls a method: the game (its sidecar answers, forwarding to the platform or not), the
 * sidecar on its own (`status`, `shutdown`), or the platform through the sidecar (`assign`;
 * the owner's commands are the game's own methods and not listed).
 */
type RpcDirection = 'game-to-controller' | 'controller-to-game' | 'platform-to-game';

interface RpcMethodSpec {
  readonly direction: RpcDirection;
  /**
   * `platform`: the sidecar forwards the call over controller-requests.fifo and the platform's
   * answer is the game's (core/protocol/controller-messages.ts); `message`: forwarded without
   * waiting for the platform; `none`: answered by whoever receives it.
   */
  readonly forwarded: 'platform' | 'message' | 'none';
  readonly params: z.ZodType;
  readonly result: z.ZodType;
}

/**
 * THE table of JSON-RPC methods between a game, its sidecar and the platform
 * (docs/game-server-protocol.md): name, direction, forwarding, params and result. The sidecar's
 * dispatcher, the controller-events consumer, the warm pool's `assign` and the sample game
 * all take their schemas from here.
 */
export const rpcMethods = {
  inited: {
    direction: 'game-to-controller',
    forwarded: 'platform',
    params: z.object({
      settings: settingsSchema.optional(),
      /**
       * The server's build (docs/versions.md): a component map that does not hash to `hash` is
       * refused; a key this platform does not know is dropped, as in any params, so a build
       * tool writing more into its manifest does not make the game exit.
       */
      protocol: protocolSchemaOf('strip').optional(),
      /** A server started with `standby=1` accepts the warm pool's protocol: it waits for `assign`. */
      standby: z.boolean().optional(),
    }),
    result: ok.extend({ restore: restoreSchema.optional() }),
  },
  joined: {
    direction: 'game-to-controller',
    forwarded: 'platform',
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
    direction: 'game-to-controller',
    forwarded: 'platform',
    params: z.object({ key: z.string().min(1).max(256) }),
    result: ok,
  },
  /**
   * A `migrateHost` room's server saves the state a replacement starts from (its `inited`
   * answer's `restore`): kept with the server's epoch; a replaced server's save is refused.
   */
  save_state: {
    direction: 'game-to-controller',
    forwarded: 'platform',
    params: z.object({ state: savedStateSchema }),
    result: z.object({ epoch: z.number().int().min(1), savedAt: z.iso.datetime() }),
  },
  /**
   * The room's settings change (the Anthill runtimes' call): stored like `inited` settings,
   * refused once the room ended or its server was replaced; matchmaking sees them at once.
   */
  update_settings: {
    direction: 'game-to-controller',
    forwarded: 'platform',
    params: z.object({ settings: settingsSchema }),
    result: ok,
  },
  /**
   * Whether the server's build is still the one its game version's configuration starts (the
   * Anthill runtimes call it without params): a server told `current: false` may drain itself.
   */
  check_deployment: {
    direction: 'game-to-controller',
    forwarded: 'platform',
    params: z.object({}),
    result: z.object({
      current: z.boolean(),
      /** The build the configuration declares now, without its components. */
      protocol: z.object({ hash: protocolHashSchema, builtAt: z.iso.datetime({ offset: true }).optional() }).optional(),
    }),
  },
  /** A message for the room's owner (`GET /v1/rooms/{roomId}/messages`); answered once SQS took it. */
  message: {
    direction: 'game-to-controller',
    forwarded: 'message',
    params: z.object({ data: storableJsonObjectSchema(maxMessageBytes) }),
    result: ok,
  },
  /**
   * Health probe; anything but `{status:"ok"}` in time and the game is killed as hung. The
   * case is not judged: every other result of the protocol is `"OK"`, and a game that answers
   * `status` the same way is healthy, not hung.
   */
  status: {
    direction: 'controller-to-game',
    forwarded: 'none',
    params: z.object({}),
    result: z.object({ status: z.string().refine((status) => status.toLowerCase() === 'ok') }),
  },
  /** Notice that the controller will stop the game (room closed or platform shutdown). */
  shutdown: {
    direction: 'controller-to-game',
    forwarded: 'none',
    params: z.object({ reason: z.string(), graceS: z.number() }),
    result: z.unknown(),
  },
  /**
   * The warm pool's hand-over to a standby server: the room it now is. Only the platform
   * sends it (never a configured command); accepted only with `{"status": "OK"}`.
   */
  assign: {
    direction: 'platform-to-game',
    forwarded: 'none',
    params: z.object({
      room_id: z.string(),
      room_settings: z.record(z.string(), z.unknown()),
      game_max_players: z.number().int().min(1),
    }),
    result: ok,
  },
} as const satisfies Record<string, RpcMethodSpec>;

export type RpcMethod = keyof typeof rpcMethods;

/** The warm pool's hand-over method (`rpcMethods.assign`). */
export const assignMethod = 'assign' satisfies RpcMethod;

/** The methods of the table that the sidecar forwards as `forwarded` says, with their specs. */
type ForwardedAs<F extends RpcMethodSpec['forwarded']> = {
  readonly [M in RpcMethod as (typeof rpcMethods)[M]['forwarded'] extends F ? M : never]: (typeof rpcMethods)[M];
};

function forwardedAs<F extends RpcMethodSpec['forwarded']>(forwarded: F): ForwardedAs<F> {
  return Object.fromEntries(
    Object.entries(rpcMethods).filter(([, spec]) => spec.forwarded === forwarded),
  ) as ForwardedAs<F>;
}

/** Game → controller methods the platform answers (forwarded over controller-requests.fifo). */
export const gameMethods = forwardedAs('platform');

/** Game → controller, forwarded without waiting for the platform. */
export const gameNotifications = forwardedAs('message');

export type GameMethod = keyof typeof gameMethods;

export type GameMethodParams<M extends GameMethod> = z.output<(typeof gameMethods)[M]['params']>;
export type GameMethodResult<M extends GameMethod> = z.output<(typeof gameMethods)[M]['result']>;

/**
 * Notifications (no id, no answer) the platform has the sidecar relay to the game. The sidecar
 * relays only the methods listed here, so a game never receives a method it was not told of.
 */
export const platformNotices = {
  /**
   * A player was refused because its build is not the server's (docs/versions.md): the game
   * may log it, or tell the player to update.
   */
  protocol_mismatch: {
    params: z.object({
      account: z.string(),
      client: z.object({ hash: protocolHashSchema, builtAt: z.string().optional() }),
      server: z.object({ hash: protocolHashSchema }),
      added: z.array(z.string()),
      removed: z.array(z.string()),
      changed: z.array(z.string()),
      newer: z.enum(['client', 'server', 'unknown']),
    }),
  },
} as const;

type PlatformNotice = keyof typeof platformNotices;

/** The names of `platformNotices`, for schemas. */
export const platformNoticeNames = Object.keys(platformNotices) as [PlatformNotice, ...PlatformNotice[]];

/** Controller → game. */
export const controllerMethods = { status: rpcMethods.status, shutdown: rpcMethods.shutdown } as const;
