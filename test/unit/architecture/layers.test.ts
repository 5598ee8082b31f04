import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';

/**
 * The layers of core/, checked on the source: what a game reports (core/controller-events/)
 * stands above the room and the game servers, and the game servers know nothing of rooms, so
 * the arrows run one way. A file that imports upward fails here, naming the import.
 */
const root = join(__dirname, '../../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Each relative import of `dir`'s files as `file -> core/<folder>/...`. */
function importsFrom(dir: string): { file: string; target: string }[] {
  return sourceFiles(dir).flatMap((file) =>
    [...readFileSync(join(root, file), 'utf8').matchAll(/from '(\.[^']*)'/g)].map((match) => ({
      file,
      target: normalize(join(dirname(file), match[1] ?? ''))
        .split('\\')
        .join('/'),
    })),
  );
}

const upward = (dir: string, above: readonly string[]) =>
  importsFrom(dir)
    .filter(({ target }) => above.some((folder) => target.startsWith(`${folder}/`)))
    .map(({ file, target }) => `${file} -> ${target}`);

describe('the layers of core/', () => {
  it('finds the files it checks', () => {
    expect(importsFrom('core/gameservers').length).toBeGreaterThan(10);
  });

  it('keeps core/gameservers/ below rooms, sessions, the pool and what a game reports', () => {
    expect(upward('core/gameservers', ['core/rooms', 'core/sessions', 'core/pool', 'core/controller-events'])).toEqual(
      [],
    );
  });

  it('lets nothing in core/ import what a game reports: only its consumer does', () => {
    const dirs = readdirSync(join(root, 'core'), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && entry.name !== 'controller-events')
      .map((entry) => `core/${entry.name}`);
    expect(dirs.flatMap((dir) => upward(dir, ['core/controller-events']))).toEqual([]);
  });
});
