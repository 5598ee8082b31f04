import * as z from 'zod';
import { gameIdSchema, gameVersionSchema } from '../gameservers/schema';
import { sessionConstantsCustomSchema } from '../rooms/custom-schema';
import {
  hostRuleDefaults,
  hostTimeoutBounds,
  maxLargeSessionMembers,
  maxSessionMembers,
  sessionCapabilities,
  sessionVisibilities,
} from '../rooms/session-model';

/** Template names travel in URL paths: short and URL-safe. */
export const templateNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.-]+$/, 'must be letters, digits, _ . or -');

/** 30 days: longer than any session wants to wait, and far inside a safe integer. */
const maxSessionTimeoutMs = 30 * 24 * 60 * 60 * 1000;

const timeoutSchema = z
  .number()
  .int()
  .min(0)
  .max(maxSessionTimeoutMs)
  .nullable()
  .optional()
  .describe(`Milliseconds (0: at once, at most ${maxSessionTimeoutMs}), or null for never. Omitted: see the template.`);

/**
 * A template's timeouts as the admin wrote them. An omitted one is not null: `reservedMs`
 * falls back to the configuration's `reservationTimeoutS` (30 s for a peer-hosted session),
 * `sessionEmptyMs` to 0 for a peer-hosted session (nobody left to host it), the rest to never
 * (see `constantsFromTemplate`).
 */
const templateTimeoutsSchema = z
  .strictObject({
    reservedMs: timeoutSchema,
    readyMs: timeoutSchema,
    inactiveMs: timeoutSchema,
    sessionEmptyMs: timeoutSchema,
    disconnectedMs: timeoutSchema.describe(
      'Peer-hosted only: an active member whose last live socket to the session closed is seen inactive this many milliseconds later. Omitted or null: sockets are not presence.',
    ),
  })
  .meta({ id: 'SessionTemplateTimeouts' });

const templateConstantsSchema = z
  .strictObject({
    maxMembers: z
      .number()
      .int()
      .min(1)
      .max(maxLargeSessionMembers)
      .describe(`At most ${maxSessionMembers}; up to ${maxLargeSessionMembers} with the capability large.`),
    visibility: z.enum(sessionVisibilities),
    timeouts: templateTimeoutsSchema.default({}),
    custom: sessionConstantsCustomSchema.default({}),
    migrateHost: z
      .boolean()
      .optional()
      .describe(
        `When the session's arbiter is lost: true elects another (a member, or a replacement server), false ends the session. Omitted: ${hostRuleDefaults.migrateHost}.`,
      ),
    hostTimeoutMs: z
      .number()
      .int()
      .min(hostTimeoutBounds.minMs)
      .max(hostTimeoutBounds.maxMs)
      .optional()
      .describe(
        `How long a peer-hosted session's arbiter may be silent (no write, no socket ping) before it counts as lost. Omitted: ${hostRuleDefaults.hostTimeoutMs}.`,
      ),
    capabilities: z
      .array(z.enum(sessionCapabilities))
      .max(sessionCapabilities.length)
      .refine((list) => new Set(list).size === list.length, 'must not repeat a capability')
      .optional()
      .describe(
        `large: up to ${maxLargeSessionMembers} members, each its own item; the room shows counts and the caller's own member, not the member list, and has no arbiter (docs/sessions.md "Large sessions").`,
      ),
  })
  .superRefine((constants, ctx) => {
    for (const issue of largeSessionIssues(constants)) ctx.addIssue({ code: 'custom', ...issue });
  })
  .meta({ id: 'SessionTemplateConstants' });

/**
 * What a template's constants may not combine: more than 100 members without `large`; an
 * arbiter with it (an election, and host migration, need the whole member list, which a large
 * session never reads).
 */
function largeSessionIssues(constants: {
  readonly maxMembers: number;
  readonly capabilities?: readonly string[] | undefined;
  readonly migrateHost?: boolean | undefined;
  readonly hostTimeoutMs?: number | undefined;
}): { path: string[]; message: string }[] {
  if (!constants.capabilities?.includes('large')) {
    return constants.maxMembers > maxSessionMembers
      ? [
          {
            path: ['maxMembers'],
            message: `must be at most ${maxSessionMembers} (up to ${maxLargeSessionMembers} with "capabilities": ["large"])`,
          },
        ]
      : [];
  }
  const why = 'a large session has no arbiter: electing one needs the whole member list, which it never reads';
  // `migrateHost: false` asks for no arbiter to be elected, which a large session keeps.
  const issues: { path: string[]; message: string }[] = [];
  if (constants.migrateHost === true)
    issues.push({ path: ['migrateHost'], message: `cannot be true with the capability large (${why})` });
  if (constants.hostTimeoutMs !== undefined)
    issues.push({ path: ['hostTimeoutMs'], message: `cannot be set with the capability large (${why})` });
  return issues;
}

/**
 * `PUT /v1/admin/templates/{template}` (docs/api.md, "Session documents"). `gameId` and `version`
 * name a game server configuration (a dedicated server per session); both omitted make a
 * peer-hosted template, whose sessions have no server.
 */
export const templateBodySchema = z
  .strictObject({
    gameId: gameIdSchema.optional(),
    version: gameVersionSchema.optional(),
    constants: templateConstantsSchema,
  })
  .superRefine((body, ctx) => {
    // One without the other names no configuration and is not peer-hosted either.
    if (body.gameId !== undefined && body.version === undefined) {
      ctx.addIssue({ code: 'custom', path: ['version'], message: 'is required with gameId (omit both: peer-hosted)' });
    }
    if (body.version !== undefined && body.gameId === undefined) {
      ctx.addIssue({ code: 'custom', path: ['gameId'], message: 'is required with version (omit both: peer-hosted)' });
    }
    // A dedicated room's server reports who is connected (`joined`, `left`): a player's socket to
    // the platform says nothing about its connection to the game.
    const disconnectedMs = body.constants.timeouts.disconnectedMs;
    if (body.gameId !== undefined && disconnectedMs !== undefined && disconnectedMs !== null) {
      ctx.addIssue({
        code: 'custom',
        path: ['constants', 'timeouts', 'disconnectedMs'],
        message: 'is for peer-hosted templates only (omit gameId and version, or omit this)',
      });
    }
  })
  .meta({ id: 'SessionTemplateBody' });

export type TemplateBody = z.output<typeof templateBodySchema>;

export const templateParamsSchema = z.strictObject({ template: templateNameSchema });

/** A stored template as the admin API returns it. */
export const templateViewSchema = z
  .object({
    name: z.string(),
    gameId: z.string().optional(),
    version: z.string().optional(),
    hosting: z
      .enum(['dedicated', 'peerHosted'])
      .describe('dedicated: gameId and version name the configuration; peerHosted: no server.'),
    constants: templateConstantsSchema,
    updatedAt: z.iso.datetime(),
  })
  .meta({ id: 'SessionTemplate' });
