import * as z from 'zod';
import { storableJsonObjectSchema } from '../protocol/storable-json';
import { gameIdSchema, gameVersionSchema } from '../gameservers/schema';
import { roomStates } from './model';
import { sessionConstantsCustomSchema, sessionPropertiesCustomSchema } from './custom-schema';
import { templateNameSchema } from '../templates/template-schema';
import { protocolSchema } from '../versions/protocol';
import { maxPartyEntries } from '../auth/token-model';
import { maxLargeSessionMembers, maxSessionMembers } from './session-model';

/** Room ids are ours (UUIDs), but any short URL-safe id is accepted on read so a bad one is a 404, not a 400. */
export const roomIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be URL-safe characters');

export const roomViewSchema = z
  .object({
    roomId: z.string(),
    gameId: z.string(),
    version: z.string(),
    region: z.string(),
    state: z.enum(roomStates),
    settings: z.record(z.string(), z.unknown()),
    maxPlayers: z.number().int(),
    players: z.number().int(),
    changeNumber: z.number().int(),
  })
  .meta({ id: 'Room' });

/** Settings are a small JSON object; 4 KB keeps rooms cheap to read and index. */
export const maxSettingsBytes = 4 * 1024;
export const roomSettingsSchema = storableJsonObjectSchema(maxSettingsBytes);

/**
 * At most this many matchmaking criteria. Each is one more comparison in the join's conditional
 * write (core/rooms/room-conditions.ts `settingsMatch`), beside up to `maxReclaimPerWrite`
 * expired members it removes; DynamoDB refuses an expression over 4 KB or over 300 operators
 * (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/Constraints.html#limits-expression-parameters),
 * and test/unit/core/rooms/join-conditions.test.ts compiles the worst case under both.
 */
export const maxCriteria = 32;

const criteriaSchema = roomSettingsSchema
  .refine((criteria) => Object.keys(criteria).length <= maxCriteria, {
    message: `must have at most ${maxCriteria} keys (each is one comparison in the join's conditional write)`,
  })
  .meta({
    override: {
      type: 'object',
      additionalProperties: true,
      maxProperties: maxCriteria,
      description:
        `The settings a room must have, each key compared whole; at most ${maxCriteria} keys, ` +
        `and otherwise as \`settings\`.`,
    },
  });

/** `protocol` in a join, create or matchmaking body: the client's build, optional. */
export const clientProtocolSchema = protocolSchema
  .optional()
  .describe(
    "The client build's network components (docs/versions.md): matched against the room's game server; " +
      'another build is refused with 409 PROTOCOL_MISMATCH. Absent: no check.',
  );

const regionSchema = z
  .string()
  .min(1)
  .max(32)
  .regex(/^[a-z0-9-]+$/, 'must be a region name');

/**
 * `POST /v1/rooms`. With `template`, the template names the configuration (or none: peer-hosted)
 * and fixes the constants, of which the creator adds only `constants.custom`; without it,
 * `gameId` and `version` are required and the configuration's default template applies
 * (core/rooms/create-resolution.ts).
 */
export const createRoomRequestSchema = z
  .strictObject({
    template: templateNameSchema.optional(),
    gameId: gameIdSchema.optional().describe("Required without template; with one, omitted or the template's."),
    version: gameVersionSchema.optional().describe("Required without template; with one, omitted or the template's."),
    settings: roomSettingsSchema.default({}),
    maxPlayers: z
      .number()
      .int()
      .min(1)
      .max(maxLargeSessionMembers)
      .optional()
      .describe(
        `At most ${maxSessionMembers}, or the template's maxMembers (up to ${maxLargeSessionMembers} with the capability large).`,
      ),
    region: regionSchema.optional(),
    latencies: z.record(regionSchema, z.number().min(0).max(60_000)).optional(),
    regionFallback: z
      .boolean()
      .optional()
      .describe(
        'When the chosen region has no healthy host, may the room go to the next best one? Default false: 503.',
      ),
    constants: z
      .strictObject(
        { custom: sessionConstantsCustomSchema.optional() },
        {
          error: (issue) =>
            issue.code === 'unrecognized_keys'
              ? 'cannot be set by the creator: only constants.custom can, the rest come from the template'
              : undefined,
        },
      )
      .optional(),
    properties: z.strictObject({ custom: sessionPropertiesCustomSchema.optional() }).optional(),
    protocol: clientProtocolSchema,
  })
  .superRefine((body, ctx) => {
    if (body.template !== undefined) return;
    for (const field of ['gameId', 'version'] as const) {
      if (body[field] === undefined)
        ctx.addIssue({ code: 'custom', path: [field], message: 'is required without template' });
    }
  })
  .meta({ id: 'CreateRoomRequest' });

/**
 * A join's party: one token per OTHER member, each that member's own access token or a party
 * token it minted for the caller (core/auth/party-proof.ts). All are seated, or none.
 */
export const partySchema = z
  .array(z.string().min(1).max(8192))
  .max(maxPartyEntries)
  .optional()
  .describe(
    "The other members of the caller's party, one token each: the member's access token, or a party token it " +
      'minted for the caller (POST /v1/me/party-tokens). All join the same room or none; the answer lists every ' +
      "member's reservation, the caller's first.",
  );

export const matchmakingRequestSchema = z
  .strictObject({
    gameId: gameIdSchema,
    version: gameVersionSchema,
    criteria: criteriaSchema.default({}),
    settings: roomSettingsSchema.default({}),
    region: regionSchema.optional(),
    latencies: z.record(regionSchema, z.number().min(0).max(60_000)).optional(),
    regionFallback: z
      .boolean()
      .optional()
      .describe(
        'When the chosen region has no healthy host, may the room go to the next best one? Default false: 503.',
      ),
    protocol: clientProtocolSchema.describe(
      "The client build's network components (docs/versions.md): only rooms whose game server is of the same build " +
        '(or reported none) are joined. Absent: no check.',
    ),
    party: partySchema,
  })
  .meta({ id: 'MatchmakingRequest' });
