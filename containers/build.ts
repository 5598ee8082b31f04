import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';

export type ContainerName = 'controller' | 'sample-game';

const repoRoot = resolve(__dirname, '..');
/** Where bundles go: inside node_modules, so `require('zeromq')` resolves from the repository's node_modules. */
export const bundleDirectory = join(repoRoot, 'node_modules', '.cache', 'roomkeeper');

const builds = new Map<ContainerName, Promise<string>>();

/**
 * Bundles `containers/<name>/main.ts` for Node 24 (CommonJS, `zeromq` left external: its
 * native addon cannot be bundled) to `node_modules/.cache/roomkeeper/<name>.js`, with a
 * source map, and returns the path. Builds once per process (sources may have changed
 * since the last process; a build takes well under a second); concurrent callers share it.
 * The file is written under a temporary name and renamed, so another process running the
 * previous bundle never reads half a file.
 *
 * @example
 * spawn(process.execPath, [await bundle('controller')], { env });
 */
export function bundle(name: ContainerName): Promise<string> {
  let pending = builds.get(name);
  if (!pending) {
    pending = buildOnce(name);
    builds.set(name, pending);
    // A failed build is not remembered: the next call tries again.
    pending.catch(() => builds.delete(name));
  }
  return pending;
}

async function buildOnce(name: ContainerName): Promise<string> {
  const outfile = join(bundleDirectory, `${name}.js`);
  const result = await build({
    entryPoints: [join(repoRoot, 'containers', name, 'main.ts')],
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'cjs',
    external: ['zeromq'],
    sourcemap: true,
    outfile,
    write: false,
    logLevel: 'silent',
    legalComments: 'none',
  });
  await mkdir(bundleDirectory, { recursive: true });
  const suffix = `.${process.pid}.tmp`;
  // The map first: the new .js must never point at a missing map.
  const files = [...result.outputFiles];
  for (const file of [
    ...files.filter((f) => f.path.endsWith('.map')),
    ...files.filter((f) => !f.path.endsWith('.map')),
  ]) {
    await writeFile(file.path + suffix, file.contents);
    await rename(file.path + suffix, file.path);
  }
  return outfile;
}

/** `tsx containers/build.ts controller sample-game`: builds and prints the bundle paths. */
if (require.main === module) {
  const names = process.argv.slice(2) as ContainerName[];
  void (async () => {
    for (const name of names.length > 0 ? names : (['controller', 'sample-game'] as const)) {
      const started = performance.now();
      const path = await bundle(name);
      process.stdout.write(`${path} (${Math.round(performance.now() - started)} ms)\n`);
    }
  })();
}
