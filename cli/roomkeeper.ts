import { writeFile } from 'node:fs/promises';
import { Command, CommanderError } from 'commander';
import { ComponentDefinitionError, type ComponentDefinition } from '../core/versions/canonical';
import { definitionsOfFiles, protocolOf, type Manifest } from '../core/versions/manifest';
import { addCatalogCommands } from './commands/catalog';
import { addOperationCommands } from './commands/operations';
import { addRoomCommands } from './commands/rooms';
import { tailCommand } from './commands/tail';
import { exitCodeOf, exitCodes, UsageError, type CliIo } from './context';

/**
 * The `roomkeeper` command line (docs/cli.md): the platform's admin API for people (tables)
 * and scripts (`--json`), through the typed client. `roomkeeper hash` is the build step of
 * docs/versions.md: it hashes the build's network components and writes the manifest the
 * build ships.
 */

/**
 * When the build was made: `--built-at`, else `SOURCE_DATE_EPOCH` (seconds, the reproducible-builds
 * convention, so two builds of one commit write the same manifest), else now.
 */
function builtAtOf(option: string | undefined, env: NodeJS.ProcessEnv, now: Date): string {
  if (option !== undefined) {
    const time = Date.parse(option);
    if (Number.isNaN(time) || !/^\d{4}-\d{2}-\d{2}T/.test(option))
      throw new UsageError(`--built-at: "${option}" is not an ISO 8601 date and time`);
    return new Date(time).toISOString();
  }
  const epoch = env.SOURCE_DATE_EPOCH;
  if (epoch !== undefined && epoch !== '') {
    if (!/^\d+$/.test(epoch)) throw new UsageError(`SOURCE_DATE_EPOCH: "${epoch}" is not a whole number of seconds`);
    return new Date(Number(epoch) * 1000).toISOString();
  }
  return now.toISOString();
}

function table(manifest: Manifest, definitions: readonly ComponentDefinition[], files: Map<string, string>): string {
  const width = Math.max('component'.length, ...definitions.map((d) => d.name.length));
  const rows = Object.entries(manifest.components).map(
    ([name, hash]) => `${name.padEnd(width)}  ${hash}  ${files.get(name) ?? ''}`,
  );
  const count = definitions.length === 1 ? '1 component' : `${definitions.length} components`;
  return [
    `set hash ${manifest.hash}  (${count}, built ${manifest.builtAt})`,
    '',
    `${'component'.padEnd(width)}  ${'hash'.padEnd(16)}  file`,
    ...rows,
    '',
  ].join('\n');
}

interface HashOptions {
  readonly json?: boolean;
  readonly out?: string;
  readonly builtAt?: string;
}

async function hash(paths: string[], options: HashOptions, io: CliIo): Promise<void> {
  const builtAt = builtAtOf(options.builtAt, io.env, io.now());
  const files = new Map<string, string>();
  const definitions: ComponentDefinition[] = [];
  for (const path of paths) {
    for (const definition of await definitionsOfFiles([path])) {
      const first = files.get(definition.name);
      if (first !== undefined)
        throw new UsageError(`${path}: component "${definition.name}" is also declared in ${first}`);
      files.set(definition.name, path);
      definitions.push(definition);
    }
  }
  const manifest = protocolOf(definitions, builtAt);
  const json = `${JSON.stringify(manifest, null, 2)}\n`;
  if (options.out !== undefined) await writeFile(options.out, json);
  io.stdout(options.json === true ? json : table(manifest, definitions, files));
}

export function program(io: CliIo): Command {
  const root = new Command('roomkeeper')
    .description('Roomkeeper command line: rooms, members, bans, hosts, the warm pool, queues, the catalog.')
    .option(
      '--url <url>',
      "the API (default: the --profile's, else ROOMKEEPER_URL, else http://127.0.0.1:${PORT:-3000})",
    )
    .option('--profile <name>', 'url and token from ~/.config/roomkeeper/profiles.json')
    .option('--json', "print the API's JSON instead of tables")
    .addHelpText(
      'after',
      "\nToken: ROOMKEEPER_TOKEN, else the profile's; against the local cloud the CLI mints an admin token itself.\nExit codes: 0 ok, 1 the API answered an error, 2 usage, 3 cannot reach the API, 130 interrupted.\n",
    );
  addRoomCommands(root, io);
  addOperationCommands(root, io);
  addCatalogCommands(root, io);
  root.addCommand(tailCommand(io));
  root
    .command('hash')
    .description("hash a build's network components (JSON or O3DE AutoComponent XML) into its manifest")
    .argument('<files...>', 'component files: *.json or *.AutoComponent.xml')
    .option('--json', 'print the manifest as JSON instead of a table')
    .option('--out <file>', 'write the manifest JSON to this file')
    .option('--built-at <iso>', 'when the build was made (default: SOURCE_DATE_EPOCH if set, else now)')
    .action((paths: string[], options: HashOptions, command: Command) =>
      hash(paths, { ...options, json: command.optsWithGlobals<HashOptions>().json }, io),
    );
  configureAll(root, io);
  return root;
}

/**
 * Every command throws instead of exiting, so `run` decides the exit code (and tests can call
 * it), and writes through `io` (commands added with addCommand inherit neither setting).
 */
function configureAll(command: Command, io: CliIo): void {
  command.exitOverride().configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  for (const sub of command.commands) configureAll(sub, io);
}

/** Runs the CLI; resolves to the exit code. */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await program(io).parseAsync([...argv], { from: 'user' });
    return io.signal.aborted ? exitCodes.interrupted : exitCodes.ok;
  } catch (error) {
    // Commander has already printed its usage error or help (exit code 0 for --help, else 1: a usage error here).
    if (error instanceof CommanderError) return error.exitCode === 0 ? exitCodes.ok : exitCodes.usage;
    if (error instanceof ComponentDefinitionError) {
      io.stderr(`roomkeeper: ${error.message}\n`);
      return exitCodes.usage;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z]+$/.test(code) && !io.signal.aborted) {
      io.stderr(`roomkeeper: ${(error as Error).message}\n`);
      return exitCodes.usage;
    }
    return exitCodeOf(error, io);
  }
}

/** The process entry point (bin/roomkeeper.js). */
export function main(): void {
  const interrupt = new AbortController();
  // The first Ctrl-C lets a command stop cleanly (close its socket); a second one does not wait.
  process.once('SIGINT', () => {
    interrupt.abort(new Error('interrupted'));
    process.once('SIGINT', () => process.exit(exitCodes.interrupted));
  });
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => new Date(),
    stderrIsTTY: process.stderr.isTTY === true,
    signal: interrupt.signal,
  };
  run(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
      // A command that ended leaves nothing to wait for (an open socket, a timer): exit now.
      process.exit();
    },
    (error: unknown) => {
      process.stderr.write(`roomkeeper: unexpected error: ${(error as Error).stack ?? String(error)}\n`);
      process.exit(1);
    },
  );
}
