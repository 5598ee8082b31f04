import * as fs from 'node:fs/promises';
import * as path from 'node:path';

/** The console's files by extension; anything else is refused rather than guessed. */
const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

/** Served as UTF-8 text; the rest goes through Lambda base64-encoded. */
const textExtensions = new Set(['.html', '.js', '.css', '.json', '.svg', '.map', '.txt']);

export interface ConsoleFile {
  readonly contentType: string;
  readonly cacheControl: string;
  readonly body: Buffer;
  readonly text: boolean;
}

/**
 * The file `requested` names inside `root`, or undefined when it names none: a path that is
 * empty, absolute, climbs out (`..`), hides (a segment starting with `.`), holds a backslash or
 * NUL, or has no known type. Pure string checks first, so nothing outside `root` is ever opened.
 */
export function consoleFilePath(root: string, requested: string): string | undefined {
  if (requested === '' || requested.includes('\0') || requested.includes('\\')) return undefined;
  const segments = requested.split('/');
  if (segments.some((s) => s === '' || s.startsWith('.'))) return undefined;
  if (!(path.extname(requested).toLowerCase() in contentTypes)) return undefined;
  const resolved = path.resolve(root, ...segments);
  return resolved.startsWith(path.resolve(root) + path.sep) ? resolved : undefined;
}

/**
 * Vite names every file under `assets/` by its content hash, so a browser may keep those for
 * good; `index.html` names the current ones and must be asked for again each time.
 */
function cacheControlFor(requested: string): string {
  return requested.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
}

/** A path the single-page app routes itself (no extension): answered with index.html. */
export function isAppRoute(requested: string): boolean {
  return path.extname(requested) === '';
}

/** Reads a file `consoleFilePath` allowed; undefined when it is not there. */
export async function readConsoleFile(root: string, requested: string): Promise<ConsoleFile | undefined> {
  const file = consoleFilePath(root, requested);
  if (!file) return undefined;
  const body = await fs.readFile(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'EISDIR') return undefined;
    throw error;
  });
  if (!body) return undefined;
  const extension = path.extname(file).toLowerCase();
  return {
    contentType: contentTypes[extension]!,
    cacheControl: cacheControlFor(requested),
    body,
    text: textExtensions.has(extension),
  };
}
