import { grantableScopes } from '../auth/token-model';
import { keepsWarmPool, type GameServerConfiguration } from '../gameservers/configuration';
import { NoHealthyHostError, SpawnFailedError, SpawnTimeoutError } from '../gameservers/errors';
import type { ServerCaps, ServerSlots } from '../gameservers/server-slot-store';
import type { Placement, PlacementRequest } from '../placement/placement';
import type { Host } from '../placement/fleet-model';
import type { SessionDocument } from './document';
import { firstMembers } from './room-item';
import { playerAddress, unknownHost } from '../gameservers/server-address';
import type { Spawner } from '../gameservers/spawner';
import { assertRoomSettingsFitTask } from '../gameservers/task-overrides';
import { countSpawnFailure } from '../infra/metrics';
import type { CostBoundDefaults } from '../infra/config';
import { roomBoundsOf, sidecarBoundsOf } from './cost-bounds';
import { RequestInvalidError } from '../errors';
import { generateRegistrationKey, hashRegistrationKey } from './registration-keys';
import type { NewMember, Reservation } from './member';
import type { PartyMember, PartyReservation } from './join';
import type { Room, RoomHost, RoomSettings } from './model';
import { RoomAlreadyExistsError } from './errors';
import type { HandOver, RoomStore, SessionRead } from './room-store';
import { defaultConstants, isLargeSession, type SessionConstants, type SessionProperties } from './session-model';
import { assertSessionSizeAllowed } from './create-resolution';
import { storedHashOfKey } from './document';
import { joinWritesFor } from './large-members';
import { deploymentOf } from '../gameservers/deployment';
import { mismatchError, sameBuild } from '../versions/errors';
import { recordMismatch, refuseUndeclaredBuild, tellServerOfMismatch, type NoticeDelivery } from '../versions/notice';
import type { Protocol } from '../versions/protocol';
import type { ProtocolComponents } from '../versions/protocol-store';

export interface CreateRoomCommand {
  readonly account: string;
  readonly scopes: readonly string[];
  readonly gameId: string;
  readonly version: string;
  readonly settings: RoomSettings;
  readonly maxPlayers?: number;
  /** The region, when no `placement` dependency chooses it (and a host) instead. */
  readonly region: string;
  /** Set when matchmaking creates the room for a criteria bucket. */
  readonly bucket?: string;
  /**
   * The creator's build (docs/versions.md), if it sent one: a configuration declaring another
   * build refuses the create before anything starts, and a server reporting another build at
   * `inited` undoes the creator's reservation (409 PROTOCOL_MISMATCH either way).
   */
  readonly protocol?: Protocol;
  /**
   * The session the room is (core/rooms/create-resolution.ts). Absent: the configuration's
   * default template, open, with no custom constants or properties.
   */
  readonly session?: {
    readonly template: string | null;
    readonly constants: SessionConstants;
    readonly properties: SessionProperties;
  };
  /**
   * The creator's party (matchmaking's create): every member reserved in the create's own
   * write, beside the creator. Such a create always starts its own server (no warm pool).
   */
  readonly party?: readonly PartyMember[];
}

export interface CreateRoomDependencies {
  readonly rooms: RoomStore;
  readonly configuration: GameServerConfiguration;
  readonly spawner: Spawner;
  readonly now: () => Date;
  readonly newRoomId: () => string;
  readonly mintServerToken: (roomId: string) => Promise<string>;
  readonly sleep: (ms: number) => Promise<void>;
  /** When to stop holding the caller and answer "still spawning" (API Gateway stops at 30 s). */
  readonly answerBy: Date;
  /**
   * How long a start ECS throttles keeps its place (retrying with backoff): the request's whole
   * budget, not only the caller's wait, so a burst past RunTask's rate is started late rather
   * than refused. Absent: `answerBy`.
   */
  readonly spawnQueueBy?: Date;
  /**
   * Cost bounds (docs/cost-bounds.md): the running-server caps, and the lifetime and
   * empty-room grace the room is created with. Absent: no caps, the deployment's bounds apply.
   */
  readonly costs?: RoomCosts;
  /**
   * Chooses region and host (core/placement/placement.ts) and takes the server slot with
   * them, instead of `command.region` and the caps alone.
   */
  readonly placement?: { readonly placer: Placement; readonly request: PlacementRequest };
  /**
   * The warm pool (core/pool/warm-pool.ts): a configuration with `standby` servers hands a
   * create one of them, ready, instead of starting one. Matchmaking's creates start cold: the
   * bucket's room id is chosen before the create.
   */
  readonly warmPool?: StandbyServers;
  /**
   * How a refused build is explained (the server's components) and told to its game server.
   * Absent: the refusal names no components and tells nobody.
   */
  readonly versions?: {
    readonly components: Pick<ProtocolComponents, 'componentsOf'>;
    readonly deliver: NoticeDelivery;
  };
  /**
   * Reads the caller started before the configuration was known (beside the abuse check and
   * the configuration read), so that a warm create overlaps them instead of waiting for them.
   */
  readonly prefetched?: {
    readonly ranking?: Promise<Awaited<ReturnType<Placement['rankRecent']>>>;
  };
}

/**
 * The warm pool as a create uses it (implemented by core/pool/warm-pool.ts): a ready standby
 * server of the configuration's pool in `region`, made the creator's room with `handOver`
 * and told its settings; undefined when none could be had (the create starts cold).
 */
export interface StandbyServers {
  takeStandby(
    configuration: GameServerConfiguration,
    region: string,
    handOver: HandOver,
  ): Promise<SessionRead | undefined>;
}

export interface RoomCosts {
  readonly slots: ServerSlots;
  readonly defaults: CostBoundDefaults;
}

export type CreateRoomResult =
  | {
      readonly state: 'Ready';
      readonly room: Room;
      readonly reservation: Reservation;
      /** Every member's, the creator's first: only for a create with a party. */
      readonly reservations?: readonly PartyReservation[];
      /** The session document as the create's own write returned it (a warm create): no read needed. */
      readonly document?: SessionDocument;
    }
  | {
      readonly state: 'Spawning';
      readonly room: Room;
      readonly reservation: Reservation;
      readonly reservations?: readonly PartyReservation[];
    };

/** Grace past the spawn deadline before the platform, not the sidecar, declares the spawn dead. */
const spawnDeadlineGraceMs = 2_000;

/**
 * Creates a room for one player: from the warm pool when the configuration keeps one and the
 * pool has a ready server, else by starting its game server:
 *
 *   write room (spawning) + creator's reservation ──► spawn ──► wait for `inited`
 *                                                                ├─ ready   → Ready (201)
 *                                                                ├─ failed  → SpawnFailed / SpawnTimeout
 *                                                                └─ budget  → Spawning (202 with the reservation, poll GET)
 *
 * The sidecar kills a server that misses the spawn deadline; if the sidecar itself is gone
 * the deadline is still enforced here (and by the sweeper), judged by the platform's clock.
 */
export async function createRoom(command: CreateRoomCommand, deps: CreateRoomDependencies): Promise<CreateRoomResult> {
  const maxPlayers = checkedMaxPlayers(command, deps.configuration);
  refuseUndeclaredBuild(deps.configuration, command.protocol, command.account, deps.now());
  // A standby server is handed to one creator alone: a party's create starts its own. A large
  // session's members are items of their own, which a standby room's item never made.
  const pooled = !command.party && !isLargeSession(command.session?.constants);
  if (deps.warmPool && !command.bucket && pooled && keepsWarmPool(deps.configuration)) {
    const warm = await createFromPool(command, maxPlayers, deps.warmPool, deps);
    if (warm) return warm;
  }
  return createCold(command, maxPlayers, deps);
}

/** The room's size: the command's, never above the configuration's; settings that fit a task's overrides. */
function checkedMaxPlayers(command: CreateRoomCommand, configuration: GameServerConfiguration): number {
  const maxPlayers = command.maxPlayers ?? configuration.maxPlayers;
  if (maxPlayers > configuration.maxPlayers) {
    throw new RequestInvalidError(`maxPlayers may not exceed the configuration's ${configuration.maxPlayers}.`, [
      { field: 'body.maxPlayers', message: `must be at most ${configuration.maxPlayers}` },
    ]);
  }
  // Without a session (matchmaking's create) the room takes the configuration's default constants.
  assertSessionSizeAllowed(maxPlayers, command.session?.constants, 'body.maxPlayers');
  // Settings travel to the game server in RunTask's overrides, capped at 8,192 characters.
  assertRoomSettingsFitTask(command.settings);
  return maxPlayers;
}

/** A room whose server starts now: its slot, its item with the creator's reservation, the spawn, the wait. */
async function createCold(
  command: CreateRoomCommand,
  maxPlayers: number,
  deps: CreateRoomDependencies,
): Promise<CreateRoomResult> {
  const created = deps.now();
  const roomId = deps.newRoomId();
  const seats = [{ account: command.account, scopes: command.scopes }, ...(command.party ?? [])].map((seat) => ({
    ...seat,
    key: generateRegistrationKey(),
  }));
  const key = seats[0]!.key;
  // The slot is taken before anything exists: a create over a cap, or with no host, leaves nothing behind.
  const { region, host } = await takeServerSlot(roomId, command, deps, created);
  const room = coldRoom(roomId, region, command, maxPlayers, deps, created);
  // Pending: the creator's reservation expires reservationTimeoutS after the room became
  // ready (`inited`), not after the spawn deadline (core/rooms/document.ts). Its party shares
  // its build and its clock.
  const members: NewMember[] = seats.map((seat) => ({
    account: seat.account,
    keyHash: hashRegistrationKey(seat.key),
    scopes: seat.scopes,
    createdAt: created.toISOString(),
    ...creatorBuild(command, deps.configuration),
  }));
  try {
    await deps.rooms.createWithMember(room, command.party ? members : members[0]);
  } catch (error) {
    // A room of that id exists already (matchmaking's creators race for one bucket room): the
    // slot is that room's, taken by its creator, not this call's to give back.
    if (!(error instanceof RoomAlreadyExistsError)) await deps.costs?.slots.release(roomId);
    throw error;
  }
  const placement = await startServer(room, host, deps);
  await deps.rooms.recordPlacement(roomId, placement, deps.now());
  const current = await waitWhileSpawning(roomId, deps);
  await refuseOtherBuild(current, command, seats, deps);
  const answer = coldAnswer(current, room, key, placement.ports, deps);
  if (!command.party) return answer;
  const reservations = seats.map((seat) => ({ ...answer.reservation, account: seat.account, key: seat.key }));
  return { ...answer, reservations };
}

/** The creator's build as its member keeps it, when it sent one and the configuration checks. */
function creatorBuild(command: CreateRoomCommand, configuration: GameServerConfiguration): { v?: string } {
  return command.protocol === undefined || configuration.checkProtocol === false ? {} : { v: command.protocol.hash };
}

/**
 * The server came up as another build than the creator's: the creator's reservation is undone
 * (the room stays, empty, for the empty-room grace to end) and the refusal is the answer.
 */
async function refuseOtherBuild(
  current: Room,
  command: CreateRoomCommand,
  seats: readonly { readonly account: string; readonly key: string }[],
  deps: CreateRoomDependencies,
): Promise<void> {
  const client = command.protocol;
  if (!client || current.state !== 'ready' || current.protocolCheck === false) return;
  if (sameBuild(client.hash, current.protocol)) return;
  const undos = seats.map(({ account, key }) => ({ account, keyHash: storedHashOfKey(key), reissued: false }));
  await joinWritesFor(current, deps.rooms)
    .undoClaims(current.roomId, undos, deps.now())
    .catch(() => undefined);
  const error = await mismatchError(current.roomId, client, current.protocol!, deps.versions?.components);
  const refusal = { account: command.account, client, error };
  if (deps.versions) await tellServerOfMismatch(current, refusal, { deliver: deps.versions.deliver, now: deps.now });
  else recordMismatch(refusal, deps.now());
  throw error;
}

/** The new room as its create writes it: spawning, the creator's, with its session's template and constants. */
function coldRoom(
  roomId: string,
  region: string,
  command: CreateRoomCommand,
  maxPlayers: number,
  deps: CreateRoomDependencies,
  created: Date,
): Room {
  const { configuration } = deps;
  return {
    roomId,
    gameId: command.gameId,
    version: command.version,
    region,
    state: 'spawning',
    settings: command.settings,
    maxPlayers,
    players: 1 + (command.party?.length ?? 0),
    changeNumber: 1,
    createdAt: created.toISOString(),
    updatedAt: created.toISOString(),
    owner: command.account,
    reservationTimeoutS: configuration.reservationTimeoutS,
    spawnDeadline: new Date(created.getTime() + configuration.spawnTimeoutS * 1000).toISOString(),
    serverScopes: grantableScopes(configuration.serverScopes),
    commands: [...configuration.commands],
    ...(command.bucket ? { bucket: command.bucket } : {}),
    deployment: deploymentOf(configuration),
    ...(configuration.checkProtocol === false ? { protocolCheck: false as const } : {}),
    template: command.session?.template ?? null,
    constants:
      command.session?.constants ??
      defaultConstants({ maxPlayers, reservationTimeoutS: configuration.reservationTimeoutS }),
    properties: command.session?.properties ?? { joinability: 'open', custom: {} },
    ...(deps.costs ? { bounds: roomBoundsOf(configuration, deps.costs.defaults) } : {}),
    host: dedicatedHost(created),
  };
}

/** The room's game server started; when it cannot be, the room fails and its slot is freed. */
async function startServer(room: Room, host: Host | undefined, deps: CreateRoomDependencies) {
  const spawnDeadline = Date.parse(room.spawnDeadline);
  try {
    return await deps.spawner.spawn({
      roomId: room.roomId,
      region: room.region,
      ...(host ? { host: { hostId: host.hostId, ...(host.ecs ? { ecs: host.ecs } : {}) } } : {}),
      configuration: deps.configuration,
      roomSettings: room.settings,
      maxPlayers: room.maxPlayers,
      loginAccessToken: await deps.mintServerToken(room.roomId),
      bounds: sidecarBoundsOf(room),
      // A throttled start keeps its place for the request's budget, never past the spawn deadline.
      startBy: new Date(
        Math.min(spawnDeadline, Math.max(deps.answerBy.getTime(), (deps.spawnQueueBy ?? deps.answerBy).getTime())),
      ),
    });
  } catch (error) {
    await deps.rooms.markFailed(room.roomId, 'spawn-failed', deps.now());
    countSpawnFailure('spawn-failed', deps.now());
    await deps.costs?.slots.release(room.roomId);
    if (error instanceof NoHealthyHostError || error instanceof SpawnFailedError) throw error;
    throw new SpawnFailedError('The game server could not be started.', { cause: error });
  }
}

/** What a cold create answers once its wait ended: Ready, Spawning (202), or the spawn's failure. */
function coldAnswer(
  current: Room,
  created: Room,
  key: string,
  ports: Reservation['ports'],
  deps: CreateRoomDependencies,
): CreateRoomResult {
  const { configuration } = deps;
  const reservedMs = created.constants?.timeouts.reservedMs ?? null;
  // Ready: counted from `inited`. Still spawning: the latest it can be (inited at the deadline).
  const clockStart =
    current.state === 'ready' ? Date.parse(current.readyAt ?? current.updatedAt) : Date.parse(created.spawnDeadline);
  // A template without a reserved timeout: the configuration's, as an answer must give one.
  const expiresAt = new Date(clockStart + (reservedMs ?? configuration.reservationTimeoutS * 1000)).toISOString();
  // Ready rooms carry the address players reach; a spawning one says `pending` (poll GET).
  const reservation: Reservation = {
    key,
    host: (current.state === 'ready' ? playerAddress(current) : undefined) ?? unknownHost,
    ports,
    expiresAt,
  };
  if (current.state === 'ready') return { state: 'Ready', room: current, reservation };
  if (current.state === 'spawning') return { state: 'Spawning', room: current, reservation };
  if (current.failureReason === 'spawn-timeout') {
    throw new SpawnTimeoutError(`The game server did not call inited within ${configuration.spawnTimeoutS} s.`, {
      details: { roomId: current.roomId },
    });
  }
  throw new SpawnFailedError(`The game server failed to start (${current.failureReason ?? current.state}).`, {
    details: { roomId: current.roomId, reason: current.failureReason },
  });
}

/**
 * A create served by the warm pool: a ready standby server of the region's pool becomes the
 * creator's room in one conditional write, and only then is told its settings (`assign`, one
 * round trip through its sidecar). Undefined when the pool had none or the game refused: the
 * create starts cold.
 */
async function createFromPool(
  command: CreateRoomCommand,
  maxPlayers: number,
  pool: StandbyServers,
  deps: CreateRoomDependencies,
): Promise<CreateRoomResult | undefined> {
  const { configuration } = deps;
  const ranking = deps.placement
    ? await (deps.prefetched?.ranking ?? deps.placement.placer.rankRecent(deps.placement.request))
    : undefined;
  const region = ranking?.ranked[0]?.region ?? command.region;
  const created = deps.now();
  const key = generateRegistrationKey();
  // No replacement is started here: a server start beside the hand-over would double its time.
  // The pool keeper tops the pool up (lambdas/schedule/pool-keeper.ts).
  const session = await pool.takeStandby(
    configuration,
    region,
    standbyHandOver(command, maxPlayers, configuration, key, created),
  );
  if (!session) return undefined;
  const taken = session.room;
  const reservedMs = taken.constants?.timeouts.reservedMs ?? configuration.reservationTimeoutS * 1000;
  return {
    state: 'Ready',
    room: taken,
    document: session.doc,
    reservation: {
      key,
      host: playerAddress(taken) ?? unknownHost,
      ports: taken.placement?.ports ?? [],
      expiresAt: new Date(created.getTime() + reservedMs).toISOString(),
    },
  };
}

/** What the creator makes of a standby room: its settings, session and first member (`key`'s holder). */
function standbyHandOver(
  command: CreateRoomCommand,
  maxPlayers: number,
  configuration: GameServerConfiguration,
  key: string,
  created: Date,
): HandOver {
  const member: NewMember = {
    account: command.account,
    keyHash: hashRegistrationKey(key),
    scopes: command.scopes,
    createdAt: created.toISOString(),
    ...creatorBuild(command, configuration),
  };
  const shape = { maxPlayers, reservationTimeoutS: configuration.reservationTimeoutS };
  const constants = command.session?.constants ?? defaultConstants(shape);
  return {
    owner: command.account,
    settings: command.settings,
    maxPlayers,
    // The room's lifetime bound counts from the create, not from when the server was pooled.
    createdAt: created.toISOString(),
    template: command.session?.template ?? null,
    constants,
    properties: command.session?.properties ?? { joinability: 'open', custom: {} },
    host: dedicatedHost(created),
    ...(member.v === undefined ? {} : { protocol: member.v }),
    // A standby server is ready: the creator's reservation is a ready room's, its scopes
    // kept within the serverScopes the standby room was started with.
    members: firstMembers(
      { ...shape, constants, state: 'ready', serverScopes: grantableScopes(configuration.serverScopes) },
      member,
    ),
  };
}

/** A dedicated room's arbiter is its game server (no account): its liveness is its heartbeat. */
const dedicatedHost = (created: Date): RoomHost => ({ epoch: 1, seenAt: created.getTime() });

async function takeServerSlot(
  roomId: string,
  command: CreateRoomCommand,
  deps: CreateRoomDependencies,
  created: Date,
): Promise<{ region: string; host?: Host }> {
  const lease = { roomId, gameId: command.gameId, version: command.version, acquiredAt: created.toISOString() };
  const unlimited = Number.MAX_SAFE_INTEGER;
  const caps: ServerCaps = deps.costs
    ? {
        global: deps.costs.defaults.maxRunningServers,
        configuration: deps.configuration.maxServers ?? deps.costs.defaults.maxServersPerConfiguration,
      }
    : { global: unlimited, configuration: unlimited };
  if (deps.placement) return deps.placement.placer.place(roomId, deps.placement.request, lease, caps);
  await deps.costs?.slots.acquire(lease, caps);
  return { region: command.region };
}

async function waitWhileSpawning(roomId: string, deps: CreateRoomDependencies): Promise<Room> {
  let pause = 10;
  for (;;) {
    const room = await deps.rooms.get(roomId);
    if (room.state !== 'spawning') return room;
    const now = deps.now();
    if (now.getTime() > Date.parse(room.spawnDeadline) + spawnDeadlineGraceMs) {
      const failed = await deps.rooms.markFailed(roomId, 'spawn-timeout', now);
      if (failed.applied) countSpawnFailure('spawn-timeout', now);
      if (failed.applied && room.placement) await deps.spawner.stop(room.placement.taskId, 'spawn-timeout');
      continue;
    }
    if (now.getTime() >= deps.answerBy.getTime()) return room;
    await deps.sleep(Math.min(pause, Math.max(1, deps.answerBy.getTime() - now.getTime())));
    pause = Math.min(pause * 2, 100);
  }
}
