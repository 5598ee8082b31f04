import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import * as z from 'zod';
import { gameIdSchema, gameServerConfigurationBodySchema, gameVersionSchema } from '../core/gameservers/schema';
import { templateBodySchema, templateNameSchema } from '../core/sessions/template-schema';

/**
 * The local cloud's configuration file (see docs/local-cloud.md). Loaded once at start;
 * a file that does not validate stops the start with the failing field named.
 */
export const localConfigFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    /** The region name rooms get in the local fleet. */
    region: z.string().min(1).max(32).default('local'),
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
  })
  .superRefine((file, ctx) => {
    // Checked here, not at install, so a typo stops the start naming the line of the file.
    const seen = new Set<string>();
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
