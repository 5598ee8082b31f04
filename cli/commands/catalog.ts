import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Command } from 'commander';
import * as z from 'zod';
import type { components } from '../../client';
import { call, targetOf, UsageError, type CliIo, type GlobalOptions, type Target } from '../context';
import { printFields, printJson, printTable, withProgress } from '../output';

/** `configs list|get|put` and `templates list|get|put`: what rooms are made from. */

type ConfigurationBody = components['schemas']['GameServerConfigurationBody'];
type TemplateBody = components['schemas']['SessionTemplateBody'];

const globals = (command: Command) => command.optsWithGlobals<GlobalOptions & Record<string, unknown>>();

const objectSchema = z.record(z.string(), z.unknown());
/** The local configuration file's `games[]` entry (docs/local-cloud.md), one or many, or the whole file. */
const gameEntrySchema = z.object({
  gameId: z.string().min(1),
  version: z.string().min(1),
  configuration: objectSchema,
});
const templateEntrySchema = z.object({ name: z.string().min(1), template: objectSchema });

async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new UsageError(`${path}: ${(error as Error).message}`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${path}: not JSON: ${(error as Error).message}`);
  }
}

/** The entries a file holds: `{ <key>: [...] }` (a local configuration file), an array, or one entry. */
function entriesOf<T>(value: unknown, key: string, schema: z.ZodType<T>): T[] | undefined {
  const list = (value as Record<string, unknown> | null)?.[key] ?? value;
  const many = z.array(schema).safeParse(Array.isArray(list) ? list : [list]);
  if (many.success) return many.data;
  return undefined;
}

/** The configurations to PUT from a file, relative `binary` paths resolved against the file as the local cloud does. */
async function configurationsOf(path: string, options: Record<string, unknown>) {
  const value = await readJson(path);
  const game = options.game as string | undefined;
  const version = options.gameVersion as string | undefined;
  let entries = entriesOf(value, 'games', gameEntrySchema);
  if (game !== undefined || version !== undefined) {
    if (game === undefined || version === undefined) throw new UsageError('give both --game and --game-version');
    entries = [{ gameId: game, version, configuration: objectSchema.parse(value) }];
  }
  if (entries === undefined)
    throw new UsageError(
      `${path}: not { "gameId", "version", "configuration" } (or a list of them, or a local configuration file); for a bare configuration body give --game and --game-version`,
    );
  return entries.map((entry) => {
    const binary = entry.configuration.binary;
    const resolved =
      typeof binary === 'string' && !isAbsolute(binary) ? resolve(dirname(path), binary) : (binary as unknown);
    return {
      ...entry,
      configuration: { ...entry.configuration, ...(binary === undefined ? {} : { binary: resolved }) },
    };
  });
}

async function templatesOf(path: string, options: Record<string, unknown>) {
  const value = await readJson(path);
  const name = options.name as string | undefined;
  if (name !== undefined) return [{ name, template: objectSchema.parse(value) }];
  const entries = entriesOf(value, 'templates', templateEntrySchema);
  if (entries === undefined)
    throw new UsageError(
      `${path}: not { "name", "template" } (or a list of them, or a local configuration file); for a bare template body give --name`,
    );
  return entries;
}

/** Every page of a catalog list. */
async function allPages<T>(
  read: (nextToken: string | undefined) => Promise<{ items: T[]; nextToken?: string }>,
): Promise<T[]> {
  const all: T[] = [];
  let nextToken: string | undefined;
  do {
    const page = await read(nextToken);
    all.push(...page.items);
    nextToken = page.nextToken;
  } while (nextToken !== undefined);
  return all;
}

async function listConfigurations(target: Target, signal: AbortSignal) {
  return allPages(async (nextToken) => {
    const page = await call(target.client.GET('/v1/admin/games', { params: { query: { nextToken } }, signal }));
    return { items: page.configurations, nextToken: page.nextToken };
  });
}

async function listTemplates(target: Target, signal: AbortSignal) {
  return allPages(async (nextToken) => {
    const page = await call(target.client.GET('/v1/admin/templates', { params: { query: { nextToken } }, signal }));
    return { items: page.templates, nextToken: page.nextToken };
  });
}

function configsCommand(io: CliIo): Command {
  const configs = new Command('configs').description('game server configurations (admin): list, read, install');
  configs
    .command('list')
    .description('every configuration, every page')
    .action(async (_options: unknown, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const configurations = await listConfigurations(target, io.signal);
      if (options.json === true) printJson(io, { configurations });
      else
        printTable(
          io,
          ['game', 'version', 'runs', 'players', 'ports', 'updated'],
          configurations.map((c) => [c.gameId, c.version, c.image ?? c.binary, c.maxPlayers, c.ports, c.updatedAt]),
          '(no configurations)',
        );
    });
  configs
    .command('get')
    .description('one configuration')
    .argument('<gameId>')
    .argument('<version>')
    .action(async (gameId: string, version: string, _options: unknown, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const answer = await call(
        target.client.GET('/v1/admin/games/{gameId}/versions/{version}', { params: { path: { gameId, version } } }),
      );
      if (options.json === true) printJson(io, answer);
      else printFields(io, answer.configuration);
    });
  configs
    .command('put')
    .description(
      'install or replace configurations from a JSON file: { gameId, version, configuration }, a list of them, or a local configuration file',
    )
    .argument('<file>')
    .option('--game <gameId>', 'the file is a bare configuration body for this game (with --game-version)')
    .option('--game-version <version>', 'the version of --game')
    .action(async (file: string, _options: unknown, command: Command) => {
      const options = globals(command);
      const entries = await configurationsOf(file, options);
      const target = await targetOf(options, io);
      const stored = await withProgress(io, `installing ${entries.length} configuration(s)`, async () => {
        const out = [];
        for (const { gameId, version, configuration } of entries)
          out.push(
            (
              await call(
                target.client.PUT('/v1/admin/games/{gameId}/versions/{version}', {
                  params: { path: { gameId, version } },
                  body: configuration as ConfigurationBody,
                  signal: io.signal,
                }),
              )
            ).configuration,
          );
        return out;
      });
      if (options.json === true) printJson(io, { configurations: stored });
      else for (const c of stored) io.stdout(`stored ${c.gameId}@${c.version}\n`);
    });
  return configs;
}

function templatesCommand(io: CliIo): Command {
  const templates = new Command('templates').description('session templates (admin): list, read, install');
  templates
    .command('list')
    .description('every template, every page')
    .action(async (_options: unknown, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const all = await listTemplates(target, io.signal);
      if (options.json === true) printJson(io, { templates: all });
      else
        printTable(
          io,
          ['template', 'hosting', 'game', 'members', 'visibility', 'updated'],
          all.map((t) => [
            t.name,
            t.hosting,
            t.gameId === undefined ? '' : `${t.gameId}@${t.version}`,
            t.constants.maxMembers,
            t.constants.visibility,
            t.updatedAt,
          ]),
          '(no templates)',
        );
    });
  templates
    .command('get')
    .description('one template')
    .argument('<name>')
    .action(async (name: string, _options: unknown, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const answer = await call(
        target.client.GET('/v1/admin/templates/{template}', { params: { path: { template: name } } }),
      );
      if (options.json === true) printJson(io, answer);
      else printFields(io, answer.template);
    });
  templates
    .command('put')
    .description(
      'install or replace templates from a JSON file: { name, template }, a list of them, or a local configuration file',
    )
    .argument('<file>')
    .option('--name <template>', 'the file is a bare template body with this name')
    .action(async (file: string, _options: unknown, command: Command) => {
      const options = globals(command);
      const entries = await templatesOf(file, options);
      const target = await targetOf(options, io);
      const stored = [];
      for (const { name, template } of entries)
        stored.push(
          (
            await call(
              target.client.PUT('/v1/admin/templates/{template}', {
                params: { path: { template: name } },
                body: template as TemplateBody,
                signal: io.signal,
              }),
            )
          ).template,
        );
      if (options.json === true) printJson(io, { templates: stored });
      else for (const t of stored) io.stdout(`stored template ${t.name}\n`);
    });
  return templates;
}

export function addCatalogCommands(root: Command, io: CliIo): void {
  root.addCommand(configsCommand(io));
  root.addCommand(templatesCommand(io));
}
