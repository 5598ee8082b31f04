import { writeFile } from 'node:fs/promises';
import { Command, CommanderError } from 'commander';
import { ComponentDefinitionError, type ComponentDefinition } from '../core/versions/canonical';
import { definitionsOfFiles, protocolOf, type Manifest } from '../core/versions/manifest';

/**
 * The `roomkeeper` command line. `roomkeeper hash` is the build step of docs/versions.md: it
 * hashes the build's network components and writes the manifest the build ships.
 */

/** A bad input: one line on stderr and exit code 2, so a build script fails with a reason, not a trace. */
class UsageError extends Error {}

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

/** What the CLI touches outside its arguments. */
interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => Date;
}

function program(io: CliIo): Command {
  const root = new Command('roomkeeper')
    .description('Roomkeeper command line.')
    .exitOverride()
    .configureOutput({ writeOut: io.stdout, writeErr: io.stderr });
  root
    .command('hash')
    .description("hash a build's network components (JSON or O3DE AutoComponent XML) into its manifest")
    .argument('<files...>', 'component files: *.json or *.AutoComponent.xml')
    .option('--json', 'print the manifest as JSON instead of a table')
    .option('--out <file>', 'write the manifest JSON to this file')
    .option('--built-at <iso>', 'when the build was made (default: SOURCE_DATE_EPOCH if set, else now)')
    .action((paths: string[], options: HashOptions) => hash(paths, options, io));
  return root;
}

/** Runs the CLI; resolves to the exit code. */
async function run(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    await program(io).parseAsync([...argv], { from: 'user' });
    return 0;
  } catch (error) {
    // Commander has already printed its usage error or help.
    if (error instanceof CommanderError) return error.exitCode;
    if (error instanceof ComponentDefinitionError || error instanceof UsageError) {
      io.stderr(`roomkeeper: ${error.message}\n`);
      return 2;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && code.startsWith('E')) {
      io.stderr(`roomkeeper: ${(error as Error).message}\n`);
      return 2;
    }
    throw error;
  }
}

/** The process entry point (bin/roomkeeper.js). */
export function main(): void {
  const io: CliIo = {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    env: process.env,
    now: () => new Date(),
  };
  run(process.argv.slice(2), io).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      process.stderr.write(`roomkeeper: unexpected error: ${(error as Error).message}\n`);
      process.exitCode = 1;
    },
  );
}
