import * as z from 'zod';
import { roomViewSchema } from './schema';
import { memberPropertiesCustomSchema, sessionPropertiesCustomSchema } from './custom-schema';
import { SessionConstantsImmutableError } from './session-errors';
import {
  hostTimeoutBounds,
  maxLargeSessionMembers,
  memberSettableStates,
  memberStates,
  sessionCapabilities,
  sessionJoinabilities,
  sessionVisibilities,
} from './session-model';

const timeoutViewSchema = z.number().int().min(0).nullable();

/** Constants as a session holds them: every timeout resolved (null = never, 0 = at once). */
const sessionConstantsViewSchema = z
  .object({
    maxMembers: z.number().int().min(1).max(maxLargeSessionMembers),
    visibility: z.enum(sessionVisibilities),
    timeouts: z.object({
      reservedMs: timeoutViewSchema,
      readyMs: timeoutViewSchema,
      inactiveMs: timeoutViewSchema,
      sessionEmptyMs: timeoutViewSchema,
      disconnectedMs: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe(
          'Peer-hosted sessions: an active member whose last live socket to the session closed is seen inactive this many milliseconds later. Absent: sockets are not presence.',
        ),
    }),
    custom: z.record(z.string(), z.unknown()),
    migrateHost: z
      .boolean()
      .describe("true: the arbiter's loss elects another; false: it ends the session (failureReason host-lost)."),
    hostTimeoutMs: z
      .number()
      .int()
      .min(hostTimeoutBounds.minMs)
      .max(hostTimeoutBounds.maxMs)
      .describe('How long the arbiter may be silent before it counts as lost.'),
    capabilities: z
      .array(z.enum(sessionCapabilities))
      .optional()
      .describe('large: counts on the room, members as their own items; the view shows `member`, never `members`.'),
  })
  .meta({ id: 'SessionConstants' });

const sessionPropertiesViewSchema = z
  .object({ joinability: z.enum(sessionJoinabilities), custom: z.record(z.string(), z.unknown()) })
  .meta({ id: 'SessionProperties' });

const sessionMemberViewSchema = z
  .object({
    account: z.string(),
    state: z.enum(memberStates),
    properties: z.object({ custom: z.record(z.string(), z.unknown()) }),
    expiresAt: z.iso
      .datetime()
      .optional()
      .describe(
        "Shown to admins only: when the member's slot runs out unless it moves on (a reservation unconfirmed, an inactive member not back). Absent: no timeout runs.",
      ),
  })
  .meta({ id: 'SessionMember' });

const hostViewSchema = z
  .object({
    account: z
      .string()
      .optional()
      .describe("The member that arbitrates the session; absent while a dedicated room's game server does."),
    epoch: z
      .number()
      .int()
      .min(1)
      .describe('The fencing token: every election moves it on; arbiter writes name it in X-Host-Epoch.'),
    address: z
      .string()
      .optional()
      .describe("A dedicated room's game server address, once it is ready (where an invited player connects)."),
    next: z
      .string()
      .optional()
      .describe(
        'Shown to live members of a peer-hosted session: the preferred successor (the active member, not the host, with the lowest member number), who should claim first once the host is silent past hostTimeoutMs (any active member may).',
      ),
  })
  .describe("The session's arbiter. Absent on rooms made before arbiters.")
  .meta({ id: 'RoomHost' });

/**
 * The room view of docs/api.md with its session document: what every room response returns
 * (with `ETag: "<changeNumber>"`). `members` is there for members, and for anyone when the
 * visibility is `open`.
 */
export const sessionRoomViewSchema = roomViewSchema
  .extend({
    template: z
      .string()
      .nullable()
      .describe("The template the session was made from; null: the configuration's default template."),
    constants: sessionConstantsViewSchema,
    properties: sessionPropertiesViewSchema,
    members: z
      .array(sessionMemberViewSchema)
      .optional()
      .describe(
        'For live members, and for anyone when the visibility is open; for admins always (not a large session).',
      ),
    member: sessionMemberViewSchema
      .optional()
      .describe("A large session (capabilities large): the caller's own member entry, if it is one. Never the list."),
    server: z
      .object({ host: z.string(), ports: z.array(z.number().int()) })
      .optional()
      .describe(
        "Where the room's game server takes players: shown to the room's live members once it is ready (the same host and ports as their reservation). Absent while it spawns. Admins see it once the server is placed, host `pending` until its address is known.",
      ),
    host: hostViewSchema.optional(),
    protocol: z
      .object({ hash: z.string(), builtAt: z.string().optional() })
      .optional()
      .describe(
        "Admins only: the build the room's game server reported in `inited` (its network components' set hash, docs/versions.md).",
      ),
  })
  .meta({ id: 'Room' });

/** A join's answer. A peer-hosted session has no server: its reservations carry no host or ports. */
export const sessionReservationSchema = z
  .object({
    key: z.string(),
    host: z.string().optional().describe('Absent in a peer-hosted session.'),
    ports: z.array(z.number().int()).optional().describe('Absent in a peer-hosted session.'),
    expiresAt: z.iso.datetime(),
  })
  .meta({ id: 'Reservation' });

/**
 * `PATCH /v1/rooms/{roomId}`: a member writes the room's properties. `constants` is named
 * only so that a write to it is a 403 (docs/api.md), not a 400 for an unknown key.
 */
export const patchRoomRequestSchema = z
  .strictObject({
    properties: z
      .strictObject({
        joinability: z.enum(sessionJoinabilities).optional(),
        custom: sessionPropertiesCustomSchema.optional(),
      })
      .optional(),
    constants: z.unknown().optional().describe('Never writable: any value answers 403 FORBIDDEN.'),
  })
  .refine((body) => body.properties !== undefined || body.constants !== undefined, {
    message: 'is required: nothing to change',
    path: ['properties'],
  })
  .meta({ id: 'PatchRoomRequest' });

/** A body that passed the schema and still writes a constant is refused: constants are immutable. */
export function refuseConstantsWrite<B extends { readonly constants?: unknown }>(
  body: B,
  roomId?: string,
): Omit<B, 'constants'> {
  if (body.constants !== undefined) throw new SessionConstantsImmutableError(roomId);
  const { constants: _constants, ...rest } = body;
  return rest;
}

/** `PATCH /v1/rooms/{roomId}/members/me`: the caller's own state and properties, nobody else's. */
export const patchMemberRequestSchema = z
  .strictObject({
    state: z.enum(memberSettableStates).optional(),
    properties: z.strictObject({ custom: memberPropertiesCustomSchema }).optional(),
  })
  .refine((body) => body.state !== undefined || body.properties !== undefined, {
    message: 'is required: nothing to change (state or properties)',
    path: ['state'],
  })
  .meta({ id: 'PatchMemberRequest' });

/** `POST /v1/rooms/{roomId}/host`: the epoch the caller last saw (the room view's `host.epoch`). */
export const claimHostRequestSchema = z
  .strictObject({
    epoch: z
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .describe(
        "The room's host epoch as the caller last saw it (0: a room shown without a host). Not current: 409 STALE_EPOCH.",
      ),
  })
  .meta({ id: 'ClaimHostRequest' });
