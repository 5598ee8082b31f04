import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

/**
 * The storage boundary, checked on the source: only store modules send DynamoDB item commands,
 * and only the composition root (lambdas/dependencies.ts) builds stores. A handler or use case
 * that queries the table itself, or builds its own store, fails here.
 */
const root = join(__dirname, '../../..');
const sourceDirs = ['core', 'lambdas', 'local', 'containers'];

/** Not yet behind a store; each entry names why and who removes it. */
const knownExceptions = new Map<string, string>([]);

function sourceFiles(dir: string): string[] {
  return readdirSync(join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

const files = sourceDirs.flatMap(sourceFiles).map((path) => ({
  path: relative(root, join(root, path)).split('\\').join('/'),
  text: readFileSync(join(root, path), 'utf8'),
}));

const itemCommand =
  /\b(Get|Put|Update|Delete|Query|Scan|TransactWrite|TransactGet|BatchWrite|BatchGet)Command\b[^;]*from '@aws-sdk\/lib-dynamodb'|from '@aws-sdk\/lib-dynamodb'[^;]*\b(Get|Put|Update|Delete|Query|Scan|TransactWrite|TransactGet|BatchWrite|BatchGet)Command\b/s;
const isStore = (path: string) => /^core\/.*store[^/]*\.ts$/.test(path);

describe('the storage boundary', () => {
  it('finds the sources it checks', () => {
    expect(files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['lambdas/http/rooms/list.ts', 'local/reconcile.ts']),
    );
  });

  it('lets only store modules send DynamoDB item commands', () => {
    const offenders = files
      .filter((file) => !isStore(file.path) && !knownExceptions.has(file.path))
      .filter((file) => importsOf(file.text).some((line) => itemCommand.test(line)))
      .map((file) => file.path);
    expect(offenders).toEqual([]);
  });

  it('scans nothing but a release’s one-time pass: every lookup is a key or an index query', () => {
    // A Scan reads everything the table ever stored (ended rooms awaiting TTL, accounts,
    // idempotency records); live rooms are found through the sweeper's index (gsi3). Only the
    // pass over the previous release's items scans, once per table (bans have no index).
    const offenders = files
      .filter((file) => file.path !== 'core/upgrade/upgrade-store.ts')
      .filter((file) => importsOf(file.text).some((line) => /\b(Scan|ParallelScan)(Command)?\b/.test(line)))
      .map((file) => file.path);
    expect(offenders).toEqual([]);
  });

  it('lets only the composition root build stores', () => {
    const offenders = files
      .filter((file) => file.path !== 'lambdas/dependencies.ts')
      .filter((file) => /\bnew \w+Store\(/.test(file.text))
      .map((file) => file.path);
    expect(offenders).toEqual([]);
  });

  it('keeps every known exception real, so a fixed one is struck from the list', () => {
    for (const [path, command] of knownExceptions) {
      expect(files.find((file) => file.path === path)?.text).toContain(command);
    }
  });
});

/** Import statements only: a comment naming a command is not a call. */
function importsOf(text: string): string[] {
  return text.match(/^import[^;]*;/gms) ?? [];
}
