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
import { idempotencyKeyHeaderSchema } from '../../core/idempotency/record';
import { gameServerConfigurationBodySchema } from '../../core/gameservers/schema';
import { createRoomRequestSchema, matchmakingRequestSchema } from '../../core/rooms/schema';
import { ifMatchHeaderSchema } from '../../core/sessions/if-match';
import { templateBodySchema, templateParamsSchema, templateViewSchema } from '../../core/sessions/template-schema';
import {
  patchMemberRequestSchema,
  patchRoomRequestSchema,
  sessionReservationSchema,
  sessionRoomViewSchema,
} from '../../core/sessions/view-schema';
import { devTokenRequestSchema } from './dev/tokens';
import { gameVersionParamsSchema } from './admin/games/params';
import { banAccountParamsSchema } from './admin/bans/params';
import { joinRoomRequestSchema } from './rooms/join';
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
import { routes, type RouteId } from './routes';

const errorSchema = z
  .object({
    error: z.object({
      code: z.enum(Object.keys(errorStatus) as [keyof typeof errorStatus, ...(keyof typeof errorStatus)[]]),
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .meta({ id: 'Error' });

const json = (schema: z.ZodType, description: string) => ({ description, content: { 'application/json': { schema } } });
/** Every answer that carries one room carries its change number as the entity tag (docs/api.md). */
const etagHeader = z.object({
  etag: z.string().describe('The room\'s change number, quoted ("12"): send it back as If-Match.'),
});
const roomJson = (schema: z.ZodType, description: string) => ({ ...json(schema, description), headers: etagHeader });
const errors = (...codes: (keyof typeof errorStatus)[]) =>
  Object.fromEntries(
    [...new Set(codes.map((code) => errorStatus[code]))].map((status) => [
      String(status),
      json(errorSchema, codes.filter((c) => errorStatus[c] === status).join(', ')),
    ]),
  );
const roomIdParams = z.object({ roomId: z.string() });
const idempotencyHeader = z.object({ 'idempotency-key': idempotencyKeyHeaderSchema });
const roomAndReservation = z
  .object({ room: sessionRoomViewSchema, reservation: sessionReservationSchema })
  .meta({ id: 'RoomWithReservation' });
const configurationView = z.object({ configuration: gameServerConfigurationBodySchema });
const banView = z.object({ ban: banSchema });
const templateView = z.object({ template: templateViewSchema });
const roomView = z.object({ room: sessionRoomViewSchema });
const ifMatch = z.object({ 'if-match': ifMatchHeaderSchema });
const regionSchema = z
  .object({ name: z.string(), location: geoPointSchema, default: z.boolean() })
  .meta({ id: 'Region' });
const hostSchema = hostBodySchema
  .extend({
    limits: hostLimitsSchema,
    heartbeatTimeoutS: z.number().int(),
    draining: z.boolean(),
    placed: z.number().int().describe('Servers the platform placed here and has not released.'),
    createdAt: z.iso.datetime(),
    heartbeat: hostHeartbeatSchema.extend({ at: z.iso.datetime() }).optional(),
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
      '202': roomJson(roomView, 'Still spawning; poll GET /v1/rooms/{roomId}.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'BANNED',
        'NOT_FOUND',
        'RATE_LIMITED',
        'SPAWN_FAILED',
        'NO_HEALTHY_HOST',
        'UNAVAILABLE',
        'SPAWN_TIMEOUT',
      ),
    },
  },
  getRoom: {
    summary: 'Read a room',
    requestParams: { path: roomIdParams },
    responses: { '200': roomJson(roomView, 'The room.'), ...errors('UNAUTHORIZED', 'NOT_FOUND') },
  },
  joinRoom: {
    summary: 'Join a named room: claim a slot and get a registration key',
    requestParams: { path: roomIdParams, header: idempotencyHeader },
    requestBody: { content: { 'application/json': { schema: joinRoomRequestSchema } } },
    responses: {
      '200': roomJson(roomAndReservation, 'A slot is reserved for the caller; connect with the key before expiresAt.'),
      '202': roomJson(roomAndReservation, 'Reserved in a room that is still spawning; poll GET /v1/rooms/{roomId}.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'BANNED',
        'NOT_FOUND',
        'ROOM_FULL',
        'NOT_JOINABLE',
        'RATE_LIMITED',
        'UNAVAILABLE',
      ),
    },
  },
  matchmakingJoin: {
    summary: 'Find an open room matching every criteria key, else create one (rooms are packed densely)',
    requestParams: { header: idempotencyHeader },
    requestBody: { content: { 'application/json': { schema: matchmakingRequestSchema } } },
    responses: {
      '200': roomJson(roomAndReservation, 'A slot is reserved for the caller.'),
      '202': roomJson(roomAndReservation, 'Reserved in a room still spawning; poll GET /v1/rooms/{roomId}.'),
      ...errors(
        'BAD_REQUEST',
        'UNAUTHORIZED',
        'BANNED',
        'NOT_FOUND',
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
      '200': json(
        z.object({ rooms: z.array(sessionRoomViewSchema), nextToken: z.string().optional() }),
        'A page of open rooms.',
      ),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED'),
    },
  },
  patchRoom: {
    summary: "Write the room's properties (members only); constants never change",
    requestParams: { path: roomIdParams, header: ifMatch },
    requestBody: { content: { 'application/json': { schema: patchRoomRequestSchema } } },
    responses: {
      '200': roomJson(roomView, 'Written; the change number is bumped.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'PRECONDITION_FAILED', 'UNAVAILABLE'),
    },
  },
  patchMember: {
    summary:
      "Set the caller's own member state or properties. Allowed state changes: reserved → ready; active ⇄ inactive; reserved/ready → active only in a peer-hosted session (a dedicated room's game server makes a member active with joined); anything else is a 400 naming body.state",
    requestParams: { path: roomIdParams, header: ifMatch },
    requestBody: { content: { 'application/json': { schema: patchMemberRequestSchema } } },
    responses: {
      '200': roomJson(roomView, 'Written; the change number is bumped.'),
      ...errors('BAD_REQUEST', 'UNAUTHORIZED', 'FORBIDDEN', 'NOT_FOUND', 'PRECONDITION_FAILED', 'UNAVAILABLE'),
    },
  },
  leaveRoom: {
    summary: "Cancel the caller's reservation or leave the room",
    requestParams: { path: roomIdParams },
    responses: { '204': { description: 'The slot is free.' }, ...errors('UNAUTHORIZED', 'NOT_FOUND') },
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
  issueDevToken: {
    summary: 'Issue a token (local cloud only)',
    requestBody: { content: { 'application/json': { schema: devTokenRequestSchema } } },
    responses: { '200': json(z.object({ access_token: z.string() }), 'A bearer token.'), ...errors('BAD_REQUEST') },
  },
};

/** The OpenAPI 3.1 document of the HTTP API, generated from the schemas the handlers validate with. */
export function openApiDocument(): ReturnType<typeof createDocument> {
  const paths: ZodOpenApiPathsObject = {};
  for (const route of routes) {
    const operation: ZodOpenApiOperationObject = {
      operationId: route.id,
      ...operations[route.id],
      ...(route.auth === 'jwt' ? { security: [{ bearer: 'scope' in route ? [route.scope] : [] }] } : { security: [] }),
    };
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation };
  }
  return createDocument({
    openapi: '3.1.0',
    info: { title: 'Roomkeeper', version: '1.0.0', description: 'Rooms, joins and game servers on demand.' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' } } },
    security: [{ bearer: [] }],
    paths,
  });
}
