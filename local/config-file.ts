import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { gameIdSchema, gameServerConfigurationBodySchema, gameVersionSchema } from '../core/gameservers/schema';
import { templateBodySchema, templateNameSchema } from '../core/templates/template-schema';
import { geoPointSchema, hostIdSchema, hostLimitsSchema, regionNameSchema } from '../core/placement/fleet-model';
import { corsOriginsSchema } from '../lambdas/http/cors';

/** A local host: a share of this machine's fleet with its own capacity, heartbeat and drain switch. */
const localHostSchema = z.strictObject({
  hostId: hostIdSchema,
  maxServers: z.number().int().min(1).max(2_000).default(200),
  // One machine shared by every local host: by default a busy laptop does not refuse rooms.
  limits: hostLimitsSchema.default({ cpu: 1, memory: 1 }),
  heartbeatTimeoutS: z.number().int().min(1).max(3_600).optional(),
});

const localRegionSchema = z.strictObject({
  name: regionNameSchema,
  location: geoPointSchema.optional(),
  default: z.boolean().default(false),
  /** Absent or empty: the region has no hosts (rooms asking for it get 503 NO_HEALTHY_HOST). */
  hosts: z.array(localHostSchema).default([]),
});

/**
 * The local cloud's configuration file (see docs/local-cloud.md). Loaded once at start;
 * a file that does not validate stops the start with the failing field named.
 */
const localConfigFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    /** The region name rooms get in the local fleet when `regions` is absent. */
    region: regionNameSchema.default('local'),
    /**
     * Regions and their local hosts, as an admin would PUT them. Absent: one region (`region`)
     * with `--hosts N` hosts, local-1 … local-N.
     */
    regions: z.array(localRegionSchema).min(1).optional(),
    /** Game server configurations installed at start, as if PUT through the admin API. */
    games: z
      .array(
        z.strictObject({
          gameId: gameIdSchema,
          version: gameVersionSchema,
          configuration: gameServerConfigurationBodySchema,
        }),
      )
      .default([]),
    /** Session templates installed at start (after the games), as if PUT through the admin API. */
    templates: z.array(z.strictObject({ name: templateNameSchema, template: templateBodySchema })).default([]),
    /**
     * Origins a browser game may call the API from, as `-c corsOrigins` deployed
     * (lambdas/http/cors.ts). `--cors-origins` / `ROOMKEEPER_CORS_ORIGINS` replace it.
     */
    cors: z.strictObject({ allowOrigins: corsOriginsSchema }).optional(),
  })
  .superRefine((file, ctx) => {
    // Checked here, not at install, so a typo stops the start naming the line of the file.
    const seen = new Set<string>();
    const hostIds = new Set<string>();
    (file.regions ?? []).forEach((region, r) => {
      region.hosts.forEach((host, h) => {
        if (hostIds.has(host.hostId))
          ctx.addIssue({
            code: 'custom',
            path: ['regions', r, 'hosts', h, 'hostId'],
            message: `${host.hostId} is named twice`,
          });
        hostIds.add(host.hostId);
      });
    });
    if (file.regions && file.regions.filter((r) => r.default).length > 1)
      ctx.addIssue({ code: 'custom', path: ['regions'], message: 'at most one region may be the default' });
    if (file.regions && new Set(file.regions.map((r) => r.name)).size !== file.regions.length)
      ctx.addIssue({ code: 'custom', path: ['regions'], message: 'names a region twice' });
    file.templates.forEach(({ name, template }, index) => {
      if (seen.has(name))
        ctx.addIssue({ code: 'custom', path: ['templates', index, 'name'], message: `${name} is named twice` });
      seen.add(name);
      if (template.gameId === undefined) return;
      const game = file.games.find((g) => g.gameId === template.gameId && g.version === template.version);
      if (!game) {
        ctx.addIssue({
          code: 'custom',
          path: ['templates', index, 'template', 'gameId'],
          message: `names ${template.gameId} version ${template.version}, which is not in games[]`,
        });
      } else if (template.constants.maxMembers > game.configuration.maxPlayers) {
        ctx.addIssue({
          code: 'custom',
          path: ['templates', index, 'template', 'constants', 'maxMembers'],
          message: `must be at most ${game.configuration.maxPlayers}, the game's maxPlayers`,
        });
      }
    });
  });

export type LocalConfigFile = z.output<typeof localConfigFileSchema>;

export class LocalConfigFileError extends Error {
  override readonly name = 'LocalConfigFileError';
}

export const defaultConfigPath = resolve(__dirname, 'roomkeeper.local.json');

export function loadLocalConfigFile(path: string = defaultConfigPath): LocalConfigFile {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LocalConfigFileError(`Cannot read the local configuration ${path}: ${(error as Error).message}`, {
      cause: error,
    });
  }
  const parsed = localConfigFileSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
    throw new LocalConfigFileError(`Invalid local configuration ${path}: ${problems}`);
  }
  // Relative binaries are relative to the file, so the committed example works from any cwd.
  const base = dirname(path);
  for (const game of parsed.data.games) {
    const binary = game.configuration.binary;
    if (binary && !isAbsolute(binary) && binary.includes('/')) game.configuration.binary = resolve(base, binary);
  }
  return parsed.data;
}
