import * as z from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { banRequestSchema, banSchema } from '../../core/abuse/bans';
import {
  commandIdSchema,
  commandViewSchema,
  messagesViewSchema,
  readMessagesQuerySchema,
  sendCommandRequestSchema,
} from '../../core/commands/model';
import { errorStatus } from '../../core/errors';
import { failureReasons } from '../../core/protocol/controller-messages';
import type { RoomFailureReason } from '../../core/rooms/model';
import { idempotencyKeyHeaderSchema } from '../../core/idempotency/record';
import { gameServerConfigurationBodySchema } from '../../core/gameservers/schema';
import { createRoomRequestSchema, matchmakingRequestSchema } from '../../core/rooms/schema';
import { ifMatchHeaderSchema } from '../../core/rooms/if-match';
import { hostEpochHeaderSchema } from '../../core/rooms/host-epoch';
import { hostUnreachableRequestSchema } from '../../core/rooms/arbiter-writes';
import { putStateRequestSchema, savedStateAnswerSchema, savedStateViewSchema } from '../../core/rooms/saved-state';
import { templateBodySchema, templateParamsSchema, templateViewSchema } from '../../core/templates/template-schema';
import {
  patchMemberRequestSchema,
  claimHostRequestSchema,
  patchRoomRequestSchema,
  sessionReservationSchema,
  sessionRoomViewSchema,
} from '../../core/rooms/view-schema';
import { devTokenRequestSchema } from './dev/tokens';
import { gameVersionParamsSchema } from './admin/games/params';
import { banAccountParamsSchema } from './admin/bans/params';
import { joinRoomRequestSchema } from './rooms/join';
import { partyTokenRequestSchema } from './me/party-tokens';
import { hostParamsSchema } from './admin/hosts/params';
import { regionParamsSchema } from './admin/regions/params';
import {
  geoPointSchema,
  hostBodySchema,
  hostHeartbeatSchema,
  hostLimitsSchema,
  hostPatchSchema,
  regionBodySchema,
} from '../../core/placement/fleet-model';
import { listRoomsQuerySchema } from './rooms/list';
import { listAdminRoomsQuerySchema } from './admin/rooms/list';
import { catalogQuerySchema } from './admin/catalog-query';
import { inviteRequestSchema, myInvitesSchema } from '../../core/invites/schema';
import { routes, type RouteId } from './routes';
import { warmPoolsViewSchema } from '../../core/pool/pool-overview';
import { queueViewSchema, redriveRequestSchema, redriveResultSchema } from '../../core/infra/queue-admin';
import { queueParamsSchema } from './admin/queues/redrive';
import { historyPageSchema, historyQuerySchema } from '../../core/rooms/history';
import { logLinesPageSchema, logLinesQuerySchema } from '../../core/infra/log-lines';
import { consoleConfigSchema } from './console/config-schema';
import { membersPageSchema, membersQuerySchema } from './rooms/members';
import { clientFrameSchema, serverFrameSchema } from '../../core/live/messages';

const errorSchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(Object.keys(errorStatus) as [keyof typeof errorStatus, ...(keyof typeof errorStatus)[]]),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: 'Error' });

/**
 * What the deployed API Gateway answers by itself, before any handler runs: its JWT
 * authorizer (401, 403), its payload limit (413), stage throttling (429), an integration
 * failure or timeout (500, 503). The local cloud answers these with the Error body.
 */
const gatewayErrorSchema = z
  .strictObject({ message: z.string().describe('"Unauthorized", "Too Many Requests", …') })
  .meta({ id: 'GatewayError' });

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
/** Every answer that carries one room carries its change number as the entity tag (docs/api.md). */
const etagHeader = z.object({
  etag: z.string().describe('The room\'s change number, quoted ("12"): send it back as If-Match.'),
});
const roomJson = (schema: z.ZodType, description: string) => ({ ...json(schema, description), headers: etagHeader });
/** A 202 of a room still spawning says when its room is worth reading again. */
const spawningHeaders = etagHeader.extend({
  'retry-after': z
    .string()
    .describe(
      'Seconds until GET /v1/rooms/{roomId} is worth calling again (1 locally, 5 on ECS, where a server starts in about a minute)',
    ),
});
const spawningJson = (schema: z.ZodType, description: string) => ({
  ...json(schema, description),
  headers: spawningHeaders,
});
type ErrorCode = keyof typeof errorStatus;
/** The codes behind each error response `errors()` built, so shared ones can be merged in later. */
const errorCodesOf = new WeakMap<object, readonly ErrorCode[]>();
/** The Error body, its code one of `codes`: a code the route never answers with is a mismatch too. */
const errorsWithCodes = new Map<string, z.ZodType>();
const errorWithCodes = (codes: readonly ErrorCode[]) => {
  const key = [...codes].sort().join(',');
  let schema = errorsWithCodes.get(key);
  if (!schema) {
    // One named component per set of codes (`Error_NOT_FOUND`), shared by every route that answers it.
    schema = z
      .intersection(
        errorSchema,
        z.looseObject({ error: z.looseObject({ code: z.enum(codes as [ErrorCode, ...ErrorCode[]]) }) }),
      )
      .meta({ id: `Error_${key.replaceAll(',', '_')}` });
    errorsWithCodes.set(key, schema);
  }
  return schema;
};
const errorResponse = (codes: readonly ErrorCode[], gateway: boolean) => {
  const response = gateway
    ? json(
        z.union([errorWithCodes(codes), gatewayErrorSchema]),
        `${codes.join(', ')}; or API Gateway's own {message} when deployed.`,
      )
    : json(errorWithCodes(codes), codes.join(', '));
  errorCodesOf.set(response, codes);
  return response;
};
const errors = (...codes: ErrorCode[]) =>
  Object.fromEntries(
    [...new Set(codes.map((code) => errorStatus[code]))].map((status) => [
      String(status),
      errorResponse(
        codes.filter((c) => errorStatus[c] === status),
        false,
      ),
    ]),
  );
const roomIdParams = z.object({ roomId: z.string() });

/** Every reason a failed room can give (RoomFailureReason), checked both ways by the type below. */
const roomFailureReasons = [
  ...failureReasons,
  'spawn-failed',
  'sidecar-lost',
  'assign-refused',
  'host-lost',
  'closed-by-admin',
] as const;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const failureReasonsComplete: Same<(typeof roomFailureReasons)[number], RoomFailureReason> = true;
void failureReasonsComplete;
/** The room every room answer carries (core/rooms/room-response.ts): the session view and, once failed, why. */
const roomSchema = sessionRoomViewSchema
  .extend({
    failureReason: z
      .enum(roomFailureReasons)
      .optional()
      .describe(
        'Why the room failed (state failed), or why the platform closed it (host-lost; closed-by-admin: an operator closed it); docs/game-server-protocol.md lists the reasons.',
      ),
  })
  .meta({ id: 'Room' });
const idempotencyHeader = z.object({ 'idempotency-key': idempotencyKeyHeaderSchema });
const roomAndReservation = z
  .object({
    room: roomSchema,
    reservation: sessionReservationSchema,
    reservations: z
      .array(sessionReservationSchema.extend({ account: z.string() }))
      .optional()
      .describe("Only for a join with a party: every member's reservation, the caller's first."),
  })
  .meta({ id: 'RoomWithReservation' });
/** A stored configuration (core/gameservers/configuration.ts): the body as validated, and what the platform adds. */
const storedConfigurationSchema = z
  .strictObject({
    ...gameServerConfigurationBodySchema.shape,
    spawnTimeoutS: z.number().int().describe("The body's, or the fleet's default (30 s local, 120 s on ECS)."),
    taskDefinition: z
      .string()
      .optional()
      .describe("ECS: the task definition revision registered for this configuration's image and ports."),
    templateTaskDefinition: z
      .string()
      .optional()
      .describe(
        "ECS: the deployment's task definition that revision copies the controller of; after a deploy changes it, the next start registers the configuration anew.",
      ),
    gameId: z.string(),
    version: z.string(),
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'GameServerConfiguration' });
const configurationView = z.object({ configuration: storedConfigurationSchema });
const banView = z.object({ ban: banSchema });
const templateView = z.object({ template: templateViewSchema });
const roomView = z.object({ room: roomSchema });
const ifMatch = z.object({ 'if-match': ifMatchHeaderSchema });
const hostEpoch = z.object({ 'x-host-epoch': hostEpochHeaderSchema });
/** A member's write: `If-Match` and, when the arbiter writes as such, `X-Host-Epoch` (both optional). */
const memberWriteHeaders = ifMatch.extend({ 'x-host-epoch': hostEpochHeaderSchema.optional() });
const regionSchema = z
  .object({
    name: z.string(),
    location: geoPointSchema
      .optional()
      .describe("Absent on a region with no location (the local cloud's `local`): never chosen by nearness."),
    default: z.boolean(),
  })
  .meta({ id: 'Region' });
const hostSchema = hostBodySchema
  .extend({
    limits: hostLimitsSchema,
    heartbeatTimeoutS: z.number().int(),
    draining: z.boolean(),
    placed: z.number().int().describe('Servers the platform placed here and has not released.'),
    createdAt: z.iso.datetime(),
    heartbeat: hostHeartbeatSchema.extend({ at: z.iso.datetime() }).optional(),
    servers: z.number().int().describe('Servers counted on it: placed or reported, whichever is more.'),
    heartbeatAgeS: z.number().int().optional().describe('Seconds since its last heartbeat; absent before the first.'),
    load: z
      .number()
      .optional()
      .describe(
        'The largest of server share, CPU and memory by its last heartbeat, also while it is refused; absent before the first heartbeat.',
      ),
    health: z.union([
      z.object({ healthy: z.literal(true), load: z.number().describe('The largest of server share, CPU and memory.') }),
      z.object({
        healthy: z.literal(false),
        reason: z.enum(['draining', 'no-heartbeat', 'heartbeat-late', 'full', 'cpu-over-limit', 'memory-over-limit']),
        detail: z.string(),
      }),
    ]),
  })
  .meta({ id: 'Host' });
const hostView = z.object({ host: hostSchema });

/** Every route's operation, checked against the route table so none can be forgotten. */
const operations: Record<RouteId, ZodOpenApiOperationObject> = {
  createRoom: {
    summary: 'Create a room and hold its first slot',
    requestParams: { header: idempotencyHeader },
    requestBody: { content: { 'application/json': { schema: createRoomRequestSchema } } },
    responses: {
      '201': roomJson(roomAndReservation, 'The server is ready; the creator holds the first slot.'),
      '202': {
        ...roomJson(
          roomAndReservation,
          'Still spawning; the creator holds the first slot already (host is "pending", the reservation\'s clock starts when the room is ready). Poll GET /v1/rooms/{roomId} for the address after Retry-After seconds.',
        ),
        headers: spawningHeaders.extend({ location: z.string().describe('/v1/rooms/{roomId}') }),
      },
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'BANNED',
        'NOT_FOUND',
        'PROTOCOL_MISMATCH',
        'RATE_LIMITED',
        'SPAWN_FAILED',
        'NO_HEALTHY_HOST',
        'UNAVAILABLE',
        'SPAWN_TIMEOUT',
      ),
    },
  },
  getRoom: {
    summary:
      'Read a room; with an admin token any room, with every member and its expiry and the server address and ports',
    requestParams: { path: roomIdParams },
    responses: { '200': roomJson(roomView, 'The room.'), ...errors('UNAUTHORIZED', 'NOT_FOUND') },
  },
  joinRoom: {
    summary: 'Join a named room: claim a slot and get a registration key',
    requestParams: { path: roomIdParams, header: idempotencyHeader },
    requestBody: { content: { 'application/json': { schema: joinRoomRequestSchema } } },
    responses: {
      '200': roomJson(roomAndReservation, 'A slot is reserved for the caller; connect with the key before expiresAt.'),
      '202': spawningJson(
        roomAndReservation,
        'Reserved in a room that is still spawning; poll GET /v1/rooms/{roomId} after Retry-After seconds.',
      ),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'BANNED',
        'NOT_FOUND',
        'ROOM_FULL',
        'NOT_JOINABLE',
        'PROTOCOL_MISMATCH',
        'CONFLICT',
        'RATE_LIMITED',
        'UNAVAILABLE',
      ),
    },
  },
  createPartyToken: {
    summary: "Let a leader bring the caller into its join's party: a 5-minute token only that leader may use",
    requestBody: { content: { 'application/json': { schema: partyTokenRequestSchema } } },
    responses: {
      '201': {
        description: "The party token: the leader lists it in a join's party.",
        content: {
          'application/json': {
            schema: z.object({ partyToken: z.string(), expiresAt: z.string() }).meta({ id: 'PartyTokenResponse' }),
          },
        },
      },
      ...errors('BAD_REQUEST', 'UNAUTHORIZED'),
    },
  },
  matchmakingJoin: {
    summary: 'Find an open room matching every criteria key, else create one (rooms are packed densely)',
    requestParams: { header: idempotencyHeader },
    requestBody: { content: { 'application/json': { schema: matchmakingRequestSchema } } },
    responses: {
      '200': roomJson(roomAndReservation, 'A slot is reserved for the caller.'),
      '202': spawningJson(
        roomAndReservation,
        'Reserved in a room still spawning; poll GET /v1/rooms/{roomId} after Retry-After seconds.',
      ),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'BANNED',
        'NOT_FOUND',
        'PROTOCOL_MISMATCH',
        'CONFLICT',
        'RATE_LIMITED',
        'SPAWN_FAILED',
        'NO_HEALTHY_HOST',
        'UNAVAILABLE',
        'SPAWN_TIMEOUT',
      ),
    },
  },
  listRooms: {
    summary: 'List open rooms of a game version in a region (paginated)',
    requestParams: { query: listRoomsQuerySchema },
    responses: {
      '200': json(z.object({ rooms: z.array(roomSchema), nextToken: z.string().optional() }), 'A page of open rooms.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED'),
    },
  },
  patchRoom: {
    summary: "Write the room's properties (members only); constants never change",
    requestParams: { path: roomIdParams, header: memberWriteHeaders },
    requestBody: { content: { 'application/json': { schema: patchRoomRequestSchema } } },
    responses: {
      '200': roomJson(roomView, 'Written; the change number is bumped.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'BANNED',
        'NOT_FOUND',
        'CONFLICT',
        'STALE_EPOCH',
        'PRECONDITION_FAILED',
        'UNAVAILABLE',
      ),
    },
  },
  patchMember: {
    summary:
      "Set the caller's own member state or properties. Allowed state changes: reserved → ready; active ⇄ inactive; reserved/ready → active only in a peer-hosted session (a dedicated room's game server makes a member active with joined); anything else is a 400 naming body.state",
    requestParams: { path: roomIdParams, header: memberWriteHeaders },
    requestBody: { content: { 'application/json': { schema: patchMemberRequestSchema } } },
    responses: {
      '200': roomJson(roomView, 'Written; the change number is bumped.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'BANNED',
        'NOT_FOUND',
        'CONFLICT',
        'STALE_EPOCH',
        'PRECONDITION_FAILED',
        'UNAVAILABLE',
      ),
    },
  },
  listRoomMembers: {
    summary: "Page a session's live members (admin; 100 a page, a large session's from its member items)",
    requestParams: { path: roomIdParams, query: membersQuerySchema },
    responses: {
      '200': json(membersPageSchema, 'A page of members, in account order.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  leaveRoom: {
    summary: "Cancel the caller's reservation or leave the room",
    requestParams: { path: roomIdParams },
    responses: { '204': { description: 'The slot is free.' }, ...errors('UNAUTHORIZED', 'NOT_FOUND') },
  },
  removeMember: {
    summary:
      "The arbiter removes a member it cannot reach (X-Host-Epoch: its epoch), or an admin removes any member (no X-Host-Epoch). The member's slot frees and its key stops working",
    description:
      'With an admin token and no X-Host-Epoch, the removal is the member’s own leave made by an operator: no epoch fences it, and the answer is the admin’s view of the room.',
    requestParams: { path: roomIdParams.extend({ account: z.string() }), header: hostEpoch.partial() },
    responses: {
      '200': roomJson(roomView, 'Removed; the change number is bumped.'),
      '204': { description: 'Removed by an admin, and the session ended with it (its last member): no room to show.' },
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'BANNED', 'NOT_FOUND', 'STALE_EPOCH', 'UNAVAILABLE'),
    },
  },
  inviteToRoom: {
    summary:
      'Invite accounts: each gets a reserved slot until the template’s reservedMs, an entry in GET /v1/me/invites and an invite frame on its live sockets',
    description:
      'A live member invites; where the session has a member arbiter, only the arbiter. All or none: one transaction. An account holds at most 20 live invites.',
    requestParams: { path: roomIdParams },
    requestBody: { content: { 'application/json': { schema: inviteRequestSchema } } },
    responses: {
      '201': roomJson(roomView, 'The invited accounts hold reserved slots.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'BANNED',
        'NOT_FOUND',
        'ROOM_FULL',
        'NOT_JOINABLE',
        'CONFLICT',
        'RATE_LIMITED',
        'UNAVAILABLE',
      ),
    },
  },
  listMyInvites: {
    summary: "The caller's invites whose expiry lies ahead (accepted ones stay until they expire)",
    responses: { '200': json(myInvitesSchema, 'Live invites, soonest to expire first.'), ...errors('UNAUTHORIZED') },
  },
  claimHost: {
    summary:
      "A live, active member claims the arbiter's place at `epoch` + 1: only while the arbiter is silent past hostTimeoutMs (or gone). Any active member may claim; host.next names who should claim first, but the conditional write decides: at most one claim succeeds per epoch. Without migrateHost the claim ends the session (404, failureReason host-lost)",
    requestParams: { path: roomIdParams },
    requestBody: { content: { 'application/json': { schema: claimHostRequestSchema } } },
    responses: {
      '200': roomJson(roomView, 'The caller is the host (host.account) at the epoch host.epoch shows.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'BANNED',
        'NOT_FOUND',
        'STALE_EPOCH',
        'HOST_ALIVE',
        'UNAVAILABLE',
      ),
    },
  },
  reportHostUnreachable: {
    summary:
      "An active member other than the arbiter reports that it cannot reach the arbiter of `epoch`: a majority of such reports halves the arbiter's timeout. A report never elects",
    requestParams: { path: roomIdParams },
    requestBody: { content: { 'application/json': { schema: hostUnreachableRequestSchema } } },
    responses: {
      '200': roomJson(roomView, 'Recorded (or already counting).'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'BANNED', 'NOT_FOUND', 'STALE_EPOCH', 'UNAVAILABLE'),
    },
  },
  putRoomState: {
    summary: "The arbiter saves the session's state (X-Host-Epoch: its epoch); it replaces the last one",
    requestParams: { path: roomIdParams, header: hostEpoch },
    requestBody: { content: { 'application/json': { schema: putStateRequestSchema } } },
    responses: {
      '200': json(savedStateAnswerSchema, 'Saved.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'BANNED',
        'NOT_FOUND',
        'STALE_EPOCH',
        'PAYLOAD_TOO_LARGE',
        'UNAVAILABLE',
      ),
    },
  },
  getRoomState: {
    summary: "A live member reads the session's last saved state, whichever epoch saved it",
    requestParams: { path: roomIdParams },
    responses: {
      '200': json(savedStateViewSchema, 'The saved state.'),
      ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  sendCommand: {
    summary:
      "Send a command to the room's game server (the room's owner only; the command must be in the configuration's commands whitelist)",
    requestParams: { path: roomIdParams },
    requestBody: { content: { 'application/json': { schema: sendCommandRequestSchema } } },
    responses: {
      '200': json(commandViewSchema, 'The game server answered within about 10 s: its result, or its error.'),
      '202': {
        ...json(
          z.object({ commandId: z.string(), state: z.literal('sent') }),
          'Sent; no answer yet. Read it later at Location.',
        ),
        headers: z.object({ location: z.string().describe('/v1/rooms/{roomId}/commands/{commandId}') }),
      },
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'FORBIDDEN',
        'BANNED',
        'NOT_FOUND',
        'ROOM_NOT_READY',
        'RATE_LIMITED',
        'UNAVAILABLE',
      ),
    },
  },
  getCommand: {
    summary: 'Read a command the caller sent, and the answer once it came',
    requestParams: { path: z.object({ roomId: z.string(), commandId: commandIdSchema }) },
    responses: {
      '200': json(
        commandViewSchema,
        "The command: sent (no answer yet), answered, or failed (the game's error, or no answer within 60 s).",
      ),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  readMessages: {
    summary: "Read the game server's messages to the room's owner (the last 100 kept; long poll with waitS)",
    requestParams: { path: roomIdParams, query: readMessagesQuerySchema },
    responses: {
      '200': json(messagesViewSchema, 'Messages after `after`, oldest first; empty when none came within waitS.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'BANNED', 'NOT_FOUND', 'RATE_LIMITED', 'UNAVAILABLE'),
    },
  },
  listAdminRooms: {
    summary:
      'List the live rooms of every game (admin), a page of the live-room index at a time, filtered by game, version, region, state and template',
    requestParams: { query: listAdminRoomsQuerySchema },
    responses: {
      '200': json(
        z
          .object({
            rooms: z
              .array(roomSchema)
              .describe('Live rooms (spawning or ready), without members; standby servers are not listed.'),
            nextToken: z.string().optional().describe('Present while more of the index remains: pass it back.'),
          })
          .meta({ id: 'AdminRoomPage' }),
        'A page of live rooms; a filtered page may hold fewer than limit, even none, and still carry a nextToken.',
      ),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  closeRoom: {
    summary:
      'Close a live room (admin): state closed, failureReason closed-by-admin; its reservations end and its game server is stopped',
    requestParams: { path: roomIdParams },
    responses: {
      '200': roomJson(roomView, 'Closed by this call.'),
      ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT'),
    },
  },
  listGameConfigurations: {
    summary: 'List every game server configuration (admin), in game and version order',
    requestParams: { query: catalogQuerySchema },
    responses: {
      '200': json(
        z
          .object({
            configurations: z.array(storedConfigurationSchema),
            nextToken: z.string().optional().describe('Present while more may follow: pass it back.'),
          })
          .meta({ id: 'GameConfigurationPage' }),
        'A page of configurations.',
      ),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  listTemplates: {
    summary: 'List every session template (admin), in name order',
    requestParams: { query: catalogQuerySchema },
    responses: {
      '200': json(
        z
          .object({
            templates: z.array(templateViewSchema),
            nextToken: z.string().optional().describe('Present while more may follow: pass it back.'),
          })
          .meta({ id: 'TemplatePage' }),
        'A page of templates.',
      ),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  putGameConfiguration: {
    summary: 'Install or replace a game server configuration (admin)',
    requestParams: { path: gameVersionParamsSchema },
    requestBody: { content: { 'application/json': { schema: gameServerConfigurationBodySchema } } },
    responses: { '200': json(configurationView, 'Stored.'), ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN') },
  },
  getGameConfiguration: {
    summary: 'Read a game server configuration (admin)',
    requestParams: { path: gameVersionParamsSchema },
    responses: {
      '200': json(configurationView, 'The configuration.'),
      ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  deleteGameConfiguration: {
    summary: 'Delete a game server configuration (admin); running rooms keep theirs',
    requestParams: { path: gameVersionParamsSchema },
    responses: { '204': { description: 'Deleted.' }, ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND') },
  },
  putTemplate: {
    summary:
      'Install or replace a session template (admin): gameId and version name a configuration (dedicated server); omit both for peer-hosted sessions',
    requestParams: { path: templateParamsSchema },
    requestBody: { content: { 'application/json': { schema: templateBodySchema } } },
    responses: {
      '200': json(templateView, 'Stored. Sessions already made from an earlier version keep their constants.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  getTemplate: {
    summary: 'Read a session template (admin)',
    requestParams: { path: templateParamsSchema },
    responses: { '200': json(templateView, 'The template.'), ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND') },
  },
  deleteTemplate: {
    summary: 'Delete a session template (admin); sessions made from it keep their constants',
    requestParams: { path: templateParamsSchema },
    responses: { '204': { description: 'Deleted.' }, ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND') },
  },
  createBan: {
    summary: 'Ban an account, or replace its ban (admin); its joins and creations answer 403 BANNED',
    requestBody: { content: { 'application/json': { schema: banRequestSchema } } },
    responses: { '201': json(banView, 'The ban in force.'), ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN') },
  },
  getBan: {
    summary: 'Read the ban in force on an account (admin); an expired ban is absent',
    requestParams: { path: banAccountParamsSchema },
    responses: { '200': json(banView, 'The ban in force.'), ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND') },
  },
  deleteBan: {
    summary: 'Lift the ban on an account (admin)',
    requestParams: { path: banAccountParamsSchema },
    responses: { '204': { description: 'Lifted.' }, ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND') },
  },
  listRegions: {
    summary: 'List the regions and the ids of their hosts (admin)',
    responses: {
      '200': json(z.object({ regions: z.array(regionSchema.extend({ hosts: z.array(z.string()) })) }), 'The regions.'),
      ...errors('UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  putRegion: {
    summary: 'Create or replace a region (admin); default: true moves the default flag here',
    requestParams: { path: regionParamsSchema },
    requestBody: { content: { 'application/json': { schema: regionBodySchema } } },
    responses: {
      '200': json(z.object({ region: regionSchema }), 'Stored.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  deleteRegion: {
    summary: 'Remove a region that has no hosts (admin)',
    requestParams: { path: regionParamsSchema },
    responses: { '204': { description: 'Removed.' }, ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT') },
  },
  addHost: {
    summary: 'Add a host to a region (admin); a second host of the same id is refused',
    requestBody: { content: { 'application/json': { schema: hostBodySchema } } },
    responses: {
      '201': json(hostView, 'Added; it takes servers once it sends a heartbeat.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'CONFLICT'),
    },
  },
  listHosts: {
    summary: 'List the hosts with their health and load (admin)',
    responses: {
      '200': json(z.object({ hosts: z.array(hostSchema) }), 'The hosts.'),
      ...errors('UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  getHost: {
    summary: 'Read a host with its health and load (admin)',
    requestParams: { path: hostParamsSchema },
    responses: { '200': json(hostView, 'The host.'), ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND') },
  },
  patchHost: {
    summary: 'Drain a host (no new servers; its rooms play out) or change its capacity (admin)',
    requestParams: { path: hostParamsSchema },
    requestBody: { content: { 'application/json': { schema: hostPatchSchema } } },
    responses: {
      '200': json(hostView, 'The host as changed.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  deleteHost: {
    summary: "Remove a host that runs none of the platform's servers (admin): drain it first",
    requestParams: { path: hostParamsSchema },
    responses: { '204': { description: 'Removed.' }, ...errors('UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'CONFLICT') },
  },
  putHostHeartbeat: {
    summary: "A host agent's heartbeat: CPU, memory and running servers (admin)",
    requestParams: { path: hostParamsSchema },
    requestBody: { content: { 'application/json': { schema: hostHeartbeatSchema } } },
    responses: {
      '204': { description: 'Recorded.' },
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  getWarmPool: {
    summary: 'The warm pools (admin): per configuration and region, the target and the standby servers',
    responses: {
      '200': json(warmPoolsViewSchema, 'Every pooled configuration, by game and version.'),
      ...errors('UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  listQueues: {
    summary: "The platform's queues and their dead-letter queues (admin): counts and oldest-message age",
    responses: {
      '200': json(z.object({ queues: z.array(queueViewSchema) }).meta({ id: 'QueueList' }), 'Every queue.'),
      ...errors('UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  redriveQueue: {
    summary:
      'Move dead-lettered messages back to their source queue (admin): each deleted from the dead-letter queue only once it was sent',
    requestParams: { path: queueParamsSchema },
    requestBody: { content: { 'application/json': { schema: redriveRequestSchema } } },
    responses: {
      '200': json(redriveResultSchema, 'How many moved, and how many are left.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  listHistory: {
    summary: "Rooms' spawn and kill history (admin), newest first: today's and yesterday's, or one room's",
    requestParams: { query: historyQuerySchema },
    responses: {
      '200': json(
        historyPageSchema,
        'A page of events; one filtered by room may hold fewer than limit and still carry a nextToken.',
      ),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN'),
    },
  },
  tailLogs: {
    summary:
      'The last log lines the local cloud printed, oldest first, optionally one room’s (local cloud only, admin)',
    requestParams: { query: logLinesQuerySchema },
    responses: {
      '200': json(logLinesPageSchema, 'Lines after `after`, at most `limit`.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND'),
    },
  },
  issueDevToken: {
    summary: 'Issue a token (local cloud only)',
    requestBody: { content: { 'application/json': { schema: devTokenRequestSchema } } },
    responses: {
      '200': json(
        z.object({
          access_token: z.string(),
          token_type: z.literal('Bearer'),
          expires_in: z.number().int().describe("Seconds the token is valid for (the request's ttlS)."),
        }),
        'A bearer token.',
      ),
      ...errors('BAD_REQUEST', 'NOT_FOUND'),
    },
  },
  consoleRoot: {
    summary: 'The operator console (docs/console.md): redirects to /console/',
    responses: {
      '200': {
        description: "`/console/` (API Gateway routes it here too): the console's index.html.",
        content: { 'text/html': { schema: z.string() } },
      },
      '308': { description: 'From `/console`: to `/console/`, where the console is served.' },
    },
  },
  localConsoleConfig: {
    summary: 'Local cloud only: how the console signs in by itself (an admin token of the run’s dev key)',
    responses: {
      '200': {
        description: 'An admin token and the live socket.',
        content: { 'application/json': { schema: consoleConfigSchema } },
      },
      ...errors('NOT_FOUND'),
    },
  },
  consoleFile: {
    summary: "The operator console's files; any path without an extension is the app (index.html)",
    description:
      '`config.json` says how the console signs in: deployed, with no token (the console asks the operator for one); ' +
      'the local cloud answers that path with its own route. Greedy: `path` spans slashes (`assets/index-1a2b.js`).',
    requestParams: { path: z.object({ path: z.string().describe('A file of the console, or an app route.') }) },
    responses: {
      '200': {
        description: 'The file (HTML, JavaScript, CSS…), or `config.json`.',
        content: { 'text/html': { schema: z.string() }, 'application/json': { schema: consoleConfigSchema } },
      },
      ...errors('NOT_FOUND'),
    },
  },
};

type Route = (typeof routes)[number];

/**
 * The errors any route can answer whatever its action does: a malformed path or body (400),
 * a body too large (413), an unexpected failure (500), a dependency outage or the gateway's
 * timeout (503); with a token, a bad one (401) and, on admin routes, a missing scope (403);
 * deployed, the stage's throttling (429). A body is read as JSON whatever its Content-Type
 * (a body that is not JSON is a 400), so no route answers 415.
 */
function sharedErrorCodes(route: Route): ErrorCode[] {
  return [
    'BAD_REQUEST',
    'PAYLOAD_TOO_LARGE',
    'INTERNAL',
    'UNAVAILABLE',
    ...(route.auth === 'jwt' ? (['UNAUTHORIZED'] as const) : []),
    ...('scope' in route ? (['FORBIDDEN'] as const) : []),
    ...('localOnly' in route && route.localOnly ? [] : (['RATE_LIMITED'] as const)),
  ];
}

/** Statuses the deployed API Gateway can answer itself, with its own `{message}` body. */
function gatewayStatuses(route: Route): Set<number> {
  if ('localOnly' in route && route.localOnly) return new Set();
  return new Set([413, 429, 500, 503, ...(route.auth === 'jwt' ? [401] : []), ...('scope' in route ? [403] : [])]);
}

/** The operation's own responses with every shared error merged in (codes joined per status). */
function withSharedErrors(route: Route, operation: ZodOpenApiOperationObject): ZodOpenApiOperationObject['responses'] {
  const responses: Record<string, object> = { ...operation.responses };
  const byStatus = new Map<number, ErrorCode[]>();
  for (const [status, response] of Object.entries(responses)) {
    const codes = errorCodesOf.get(response);
    if (codes) byStatus.set(Number(status), [...codes]);
  }
  for (const code of sharedErrorCodes(route)) {
    const status = errorStatus[code];
    if (responses[String(status)] && !byStatus.has(status)) continue;
    const codes = byStatus.get(status) ?? [];
    if (!codes.includes(code)) codes.push(code);
    byStatus.set(status, codes);
  }
  const gateway = gatewayStatuses(route);
  for (const [status, codes] of byStatus) responses[String(status)] = errorResponse(codes, gateway.has(status));
  return Object.fromEntries(
    Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)),
  ) as ZodOpenApiOperationObject['responses'];
}

/** `/health` as the local cloud answers it (local/cloud.ts): each part up or down, and why. */
const healthSchema = z
  .strictObject({
    status: z.enum(['ok', 'degraded']),
    components: z.record(z.string(), z.enum(['up', 'down'])).describe('dynamodb, sqs, pollers: up or down.'),
    problems: z.record(z.string(), z.string()).optional().describe('For each part that is down, why (503 only).'),
  })
  .meta({ id: 'Health' });

/** The public half of the platform's signing key (Ed25519), never any private member. */
const jwksSchema = z
  .strictObject({
    keys: z.array(
      z.strictObject({
        kty: z.literal('OKP'),
        crv: z.literal('Ed25519'),
        x: z.string(),
        kid: z.string(),
        alg: z.literal('EdDSA'),
        use: z.literal('sig'),
      }),
    ),
  })
  .meta({ id: 'JsonWebKeySet' });

/** The gateway parses the request's URL before it matches any route. */
const malformedUrl = json(errorWithCodes(['BAD_REQUEST']), 'BAD_REQUEST: the URL cannot be parsed.');

/** `GET /` in the local cloud (local/service-index.ts): what this is and where to go next. */
const serviceIndexSchema = z
  .strictObject({
    service: z.literal('roomkeeper'),
    description: z.string(),
    version: z.string().describe("The platform's version (package.json)."),
    links: z.strictObject({ health: z.string(), openapi: z.string(), jwks: z.string() }),
  })
  .meta({ id: 'ServiceIndex' });

/** A `GET` the local gateway answers itself: no token; it fails only as the gateway does. */
function gatewayOwnGet(
  operationId: string,
  summary: string,
  ok: ReturnType<typeof json>,
): NonNullable<ZodOpenApiPathsObject[string]> {
  return {
    get: {
      operationId,
      summary,
      security: [],
      responses: {
        '200': ok,
        '400': malformedUrl,
        '500': errorResponse(['INTERNAL'], false),
        '503': errorResponse(['UNAVAILABLE'], false),
      },
    },
  };
}

/** What the local gateway serves itself (local/cloud.ts `ownRoutes`): no handler, no token, never deployed. */
const gatewayOwnPaths: ZodOpenApiPathsObject = {
  '/health': {
    get: {
      operationId: 'health',
      summary: 'Whether every part of the local cloud is up (local cloud only)',
      security: [],
      responses: {
        '200': json(healthSchema, 'Every part is up: status ok.'),
        '400': malformedUrl,
        '500': errorResponse(['INTERNAL'], false),
        '503': json(
          z.union([healthSchema, errorWithCodes(['UNAVAILABLE'])]),
          'A part is down (status degraded, with problems), or the check ran out of time (UNAVAILABLE).',
        ),
      },
    },
  },
  '/.well-known/jwks.json': gatewayOwnGet(
    'jwks',
    "The public key of the local cloud's identity provider: the only key its API trusts (local cloud only; deployed, the identity provider publishes its own)",
    json(jwksSchema, 'The key set.'),
  ),
  '/': gatewayOwnGet(
    'serviceIndex',
    'The service, its version and links to /health and this document (local cloud only)',
    json(serviceIndexSchema, 'Where to go next.'),
  ),
  '/openapi.json': gatewayOwnGet(
    'openApiDocument',
    'This document, as committed in docs/openapi.json (local cloud only)',
    json(z.looseObject({ openapi: z.string() }), 'The OpenAPI 3.1 document.'),
  ),
};

/** The OpenAPI 3.1 document of the HTTP API, generated from the schemas the handlers validate with. */
export function openApiDocument(): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const own = operations[route.id];
    const operation: ZodOpenApiOperationObject = {
      operationId: route.id,
      ...own,
      responses: withSharedErrors(route, own),
      ...(route.auth === 'jwt' ? { security: [{ bearer: 'scope' in route ? [route.scope] : [] }] } : { security: [] }),
    };
    // API Gateway's greedy `{name+}` is OpenAPI's plain `{name}` (the description says it spans slashes).
    const key = route.path.replace(/\{(\w+)\+\}/g, '{$1}');
    paths[key] = { ...paths[key], [route.method.toLowerCase()]: operation };
  }
  return createDocument({
    openapi: '3.1.0',
    info: {
      title: 'Roomkeeper',
      version: '1.0.0',
      description: 'Rooms, joins and game servers on demand.',
      // Unpublished, all rights reserved (package.json is private, with no license): an SPDX
      // LicenseRef names a licence that is not on SPDX's list.
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      { url: 'http://127.0.0.1:3000', description: 'The local cloud (`npm start`; PORT changes the port).' },
      {
        url: 'https://{apiId}.execute-api.{region}.amazonaws.com',
        description: "Deployed: the stack's ApiUrl output.",
        variables: { apiId: { default: 'your-api-id' }, region: { default: 'us-east-1' } },
      },
    ],
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } },
      // The live socket (docs/live.md) is no HTTP operation; its frames are published here so
      // generated clients (client/schema.ts) type them from the same schemas the server parses.
      schemas: { LiveClientFrame: clientFrameSchema, LiveServerFrame: serverFrameSchema },
    },
    security: [{ bearer: [] }],
    paths: { ...paths, ...gatewayOwnPaths },
  });
}
