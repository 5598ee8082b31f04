import * as z from 'zod';
import { assignMethod } from '../protocol/game-methods';
import { scopeListSchema } from '../auth/schema';
import { privilegedScopes } from '../auth/token-model';
import { reservedJsonKeys, storableJsonObjectSchema } from '../protocol/storable-json';
import { configurationOverrideIssue } from './task-overrides';
import { protocolSchema } from '../versions/protocol';
import { maxLargeSessionMembers, maxSessionMembers } from '../infra/session-bounds';

export const gameIdSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, 'must be letters, digits, _ or -');

export const gameVersionSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . or -');

const environmentName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a valid environment variable name')
  // Valid names, but an object's prototype machinery: refused as in every client-named key.
  .refine((name) => !reservedJsonKeys.has(name), { message: 'is a reserved key name' });

/**
 * A game server configuration (docs/api.md): how to start one version of a game. Rooms are
 * always created from exactly one configuration.
 */
export const gameServerConfigurationBodySchema = z
  .strictObject({
    binary: z.string().min(1).max(1024).optional(),
    image: z.string().min(1).max(1024).optional(),
    args: z.array(z.string().max(1024)).max(64).default([]),
    env: z.record(environmentName, z.string().max(4096)).default({}),
    ports: z.number().int().min(1).max(16).default(1),
    maxPlayers: z
      .number()
      .int()
      .min(1)
      .max(maxLargeSessionMembers)
      .describe(
        `Players one server takes. Above ${maxSessionMembers} only rooms made from a template with "capabilities": ["large"] use it all; other rooms hold at most ${maxSessionMembers}.`,
      ),
    serverSettings: storableJsonObjectSchema(4 * 1024).default({}),
    /** Absent: the fleet's default (30 s local, 120 s on ECS: core/gameservers/fleet-fit.ts). */
    spawnTimeoutS: z.number().int().min(1).max(600).optional(),
    reservationTimeoutS: z.number().int().min(1).max(3600).default(30),
    /** Cost bounds (docs/cost-bounds.md); absent: the deployment's defaults. */
    emptyRoomGraceS: z
      .number()
      .int()
      .min(1)
      .max(86_400)
      .optional()
      .describe(
        "Seconds a ready room may have no live member before its server is stopped (default: the deployment's, 60).",
      ),
    maxLifetimeS: z
      .number()
      .int()
      .min(5)
      .max(604_800)
      .optional()
      .describe("Seconds after creation when the room is ended, players or not (default: the deployment's, 21600)."),
    maxServers: z
      .number()
      .int()
      .min(1)
      .max(100_000)
      .optional()
      .describe('Rooms of this configuration running at once; a create beyond it is answered 503 NO_HEALTHY_HOST.'),
    /**
     * Scopes the game server's own token holds, and so may grant players with `extend_scopes`;
     * also the ceiling of every joined-player token. Never `admin`: whoever runs the game
     * server would hold it.
     */
    serverScopes: scopeListSchema.refine((scopes) => !scopes.some((scope) => privilegedScopes.has(scope)), {
      message: `may not contain ${[...privilegedScopes].join(', ')}: a game server's token never holds a privileged scope`,
    }),
    standby: z
      .number()
      .int()
      .min(0)
      .max(20)
      .optional()
      .describe(
        'Warm pool: game servers kept started and inited ahead of demand in each region, handed a room at create ' +
          '(docs/game-server-protocol.md "Standby servers"). Absent or 0: none. A game that does not accept ' +
          'assign is never pooled.',
      ),
    commands: z
      .array(
        z
          .string()
          .min(1)
          .max(64)
          .regex(/^[A-Za-z0-9_.:-]+$/)
          .refine((name) => name !== assignMethod, {
            message: "is the warm pool's hand-over (assign), which only the platform sends",
          }),
      )
      .max(64)
      .default([]),
    protocol: protocolSchema
      .optional()
      .describe(
        'The build this configuration starts, as `roomkeeper hash --out` writes it (docs/versions.md): a client of ' +
          'another build is refused at create and matchmaking before any server starts.',
      ),
    checkProtocol: z
      .boolean()
      .optional()
      .describe(
        'false turns the version check off for rooms made from now on (debugging): any client joins any of them. ' +
          'Default true.',
      ),
  })
  .refine((c) => c.binary !== undefined || c.image !== undefined, {
    message: 'binary (local fleet) or image (ECS) is required',
    path: ['binary'],
  })
  .superRefine((c, ctx) => {
    // Everything of a configuration goes into each task's RunTask overrides (8,192 characters).
    const issue = configurationOverrideIssue(c);
    if (issue) ctx.addIssue({ code: 'custom', message: issue.message, path: ['env'] });
  })
  .meta({ id: 'GameServerConfigurationBody' });

export type GameServerConfigurationBody = z.output<typeof gameServerConfigurationBodySchema>;
