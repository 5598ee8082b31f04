import * as z from 'zod';
import { heartbeatDefaults } from '../protocol/heartbeat';

/**
 * What a spawner hands the controller sidecar, as environment variables: the same for a
 * local process and an ECS container override. The sidecar parses it once at start.
 */
const json = <T extends z.ZodType>(schema: T) =>
  z.string().transform((text, ctx) => {
    try {
      return schema.parse(JSON.parse(text)) as z.output<T>;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be JSON of the documented shape' });
      return z.NEVER;
    }
  });

export const sidecarEnvironmentSchema = z.object({
  ROOM_ID: z.string().min(1),
  /**
   * The room's arbiter epoch this server serves (a replacement server's is above 1): stamped
   * on every message to the platform, which refuses those of an epoch the room has left.
   */
  ROOM_EPOCH: z.coerce.number().int().min(1).default(1),
  AWS_REGION: z.string().min(1).default('us-east-1'),
  /** Set only against the SQS emulator. */
  SQS_ENDPOINT: z.url().optional(),
  CONTROLLER_REQUEST_QUEUE_URL: z.string().min(1),
  /** Reply queue name prefix; the sidecar creates `<prefix><roomId>[.fifo]` and deletes it at exit. */
  REPLY_QUEUE_PREFIX: z.string().min(1),
  GAME_BINARY: z.string().min(1),
  GAME_ARGS: json(z.array(z.string())).default([]),
  /** Comma-separated ports reserved for this instance. */
  GAME_PORTS: z.string().regex(/^\d+(,\d+)*$/),
  /** Extra environment variables of the configuration. */
  GAME_ENV: json(z.record(z.string(), z.string())).default({}),
  GAME_MAX_PLAYERS: z.coerce.number().int().min(1),
  ROOM_SETTINGS: json(z.record(z.string(), z.unknown())).default({}),
  SERVER_SETTINGS: json(z.record(z.string(), z.unknown())).default({}),
  DISCOVERY_SERVICES: json(z.record(z.string(), z.string())).default({}),
  /** The game server's own access token (`login_access_token`). */
  LOGIN_ACCESS_TOKEN: z.string().default(''),
  /** Platform → game commands the sidecar will relay. */
  COMMAND_WHITELIST: json(z.array(z.string())).default([]),
  /** `1`: a warm-pool server; the game gets `standby=1` and the sidecar relays the platform's one `assign`. */
  STANDBY: z.enum(['1']).optional(),
  /**
   * `process`: the sidecar starts the game itself (local fleet). `external`: the game runs in
   * its own container of the same ECS task, started by ECS with the protocol's command line;
   * the sidecar binds ZMQ_ENDPOINT on the shared volume and supervises it over the socket.
   */
  GAME_LAUNCH: z.enum(['process', 'external']).default('process'),
  /** Fixed endpoint to bind (required with GAME_LAUNCH=external). */
  ZMQ_ENDPOINT: z
    .string()
    .regex(/^(ipc:\/\/\/|tcp:\/\/127\.0\.0\.1:)/)
    .optional(),
  /** `ipc` (default: a fresh 0700 directory per spawn) or `tcp` (127.0.0.1 only). */
  ZMQ_TRANSPORT: z.enum(['ipc', 'tcp']).default('ipc'),
  SPAWN_TIMEOUT_S: z.coerce.number().positive().default(30),
  STATUS_INTERVAL_S: z.coerce.number().positive().default(5),
  STATUS_TIMEOUT_S: z.coerce.number().positive().default(5),
  HEARTBEAT_INTERVAL_S: z.coerce.number().positive().default(heartbeatDefaults.intervalS),
  /** How long a forwarded game request waits for the platform's answer. */
  PLATFORM_REPLY_TIMEOUT_S: z.coerce.number().positive().default(20),
  /** SIGTERM → SIGKILL grace when stopping the game. */
  KILL_GRACE_S: z.coerce.number().positive().default(3),
  /**
   * The room's own cost bounds, which the sidecar enforces itself (containers/controller/bounds.ts)
   * so they hold when the platform's sweeper does not: its maximum lifetime, its empty grace, and
   * the longest a member stays without the game's `joined` (absent: no empty bound here).
   */
  ROOM_MAX_LIFETIME_S: z.coerce.number().positive().optional(),
  ROOM_EMPTY_GRACE_S: z.coerce.number().positive().optional(),
  ROOM_MEMBER_HOLD_S: z.coerce.number().nonnegative().optional(),
  /** Added to the lifetime and empty deadlines, so the sweeper (every minute) normally acts first. */
  ROOM_BOUND_MARGIN_S: z.coerce.number().nonnegative().default(180),
  /**
   * No send reached the request queue for this long: the room ends rather than run unwatched.
   * Far beyond any stall the platform rides out (SDK retries, throttling, a slow consumer does
   * not even fail a send): only a task cut off from SQS, or whose session lapsed, gets here.
   */
  PLATFORM_UNREACHABLE_S: z.coerce.number().positive().default(900),
  /**
   * K_room, the room's sidecar channel key (core/protocol/sidecar-channel.ts). On ECS it
   * arrives inside SIDECAR_SEALED (`sealedSidecarEnvironmentSchema`) and the sidecar sets it
   * here once opened. The local fleet never puts it in the environment — a game can read its
   * parent's /proc/<pid>/environ — but writes it to the sidecar's stdin.
   */
  SIDECAR_KEY: z.string().optional(),
  /**
   * Deployed: the scoped STS session the spawner issued (AWS_ACCESS_KEY_ID and friends hold
   * it, sealed like SIDECAR_KEY). Set, the sidecar asks the platform for a fresh session
   * before this time.
   */
  AWS_CREDENTIAL_EXPIRATION: z.iso.datetime().optional(),
  AWS_ACCESS_KEY_ID: z.string().optional(),
  AWS_SECRET_ACCESS_KEY: z.string().optional(),
  AWS_SESSION_TOKEN: z.string().optional(),
});

/**
 * On ECS, the variables the sidecar opens before it parses the rest: SIDECAR_SEALED (the
 * spawner's override, core/gameservers/sidecar-envelope.ts) and SIDECAR_ENVELOPE_KEY (the
 * deployment's envelope secret, which ECS injects into the controller container alone from
 * the task definition's `secrets`). Neither reaches the game.
 */
export const sealedSidecarEnvironmentSchema = z.object({
  SIDECAR_SEALED: z.string().min(1).optional(),
  SIDECAR_ENVELOPE_KEY: z.string().min(1).optional(),
});

export type SidecarEnvironment = z.output<typeof sidecarEnvironmentSchema>;
/** What spawners set: every variable as a string. */
export type SidecarEnvironmentVariables = Record<keyof z.input<typeof sidecarEnvironmentSchema>, string | undefined>;
