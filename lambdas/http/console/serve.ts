import * as fs from 'node:fs';
import * as path from 'node:path';
import { config } from '../../../core/infra/config';
import { childLogger } from '../../../core/infra/logger';
import type { HttpEvent, HttpHandler, HttpResult } from '../middleware';
import type { ConsoleConfig } from './config-schema';
import { isAppRoute, readConsoleFile, type ConsoleFile } from './files';

const log = childLogger('console');

/** Where the console's built files are: beside the bundled handler (deployed), else the repository's build. */
const candidateRoots = [path.join(__dirname, 'console'), path.join(__dirname, '..', '..', '..', 'console', 'dist')];

let root: string | undefined;

function consoleRoot(): string | undefined {
  root ??= candidateRoots.find((dir) => fs.existsSync(path.join(dir, 'index.html')));
  return root;
}

function errorResult(status: number, code: string, message: string): HttpResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: JSON.stringify({ error: { code, message } }),
  };
}

function fileResult(file: ConsoleFile): HttpResult {
  return {
    statusCode: 200,
    headers: {
      'content-type': file.contentType,
      'cache-control': file.cacheControl,
      'x-content-type-options': 'nosniff',
      // The console talks to this API and its live socket only; nothing else is loaded or framed.
      'content-security-policy':
        "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
      'referrer-policy': 'no-referrer',
    },
    body: file.text ? file.body.toString('utf8') : file.body.toString('base64'),
    isBase64Encoded: !file.text,
  };
}

/**
 * A deployed console's config.json: no token (the console asks the operator for one). The
 * local cloud answers this path with its own local-only route (lambdas/http/dev/console-config.ts),
 * so no deployed code can mint a token, whatever the function's environment holds.
 */
function deployedConsoleConfig(): ConsoleConfig {
  const { liveUrl } = config();
  return { local: false, ...(liveUrl ? { liveUrl } : {}) };
}

async function serve(event: HttpEvent): Promise<HttpResult> {
  // `GET /console/` reaches the `/console` route too (API Gateway ignores a trailing slash): the app.
  const requested = event.pathParameters?.path ?? (event.rawPath?.endsWith('/') ? 'index.html' : undefined);
  // `GET /console`: the app's files are addressed relative to `/console/`.
  if (requested === undefined) return { statusCode: 308, headers: { location: '/console/' }, body: '' };
  if (requested === 'config.json') {
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
      body: JSON.stringify(deployedConsoleConfig()),
    };
  }
  const dir = consoleRoot();
  if (!dir) return errorResult(404, 'NOT_FOUND', 'The console is not built here: run `npm run build:console`.');
  const file =
    (await readConsoleFile(dir, requested)) ??
    (isAppRoute(requested) ? await readConsoleFile(dir, 'index.html') : undefined);
  return file ? fileResult(file) : errorResult(404, 'NOT_FOUND', `No console file ${requested.slice(0, 200)}.`);
}

/**
 * `GET /console` and `GET /console/{path+}`: the operator console's static files (built by
 * Vite into console/dist, carried in this function's bundle when deployed), the app's own
 * routes answered with index.html, and `config.json`. Public: the page holds no secret; every
 * piece of data it shows comes from the admin API with the operator's token.
 */
export const handler: HttpHandler = async (event) => {
  try {
    return await serve(event);
  } catch (error) {
    log.error('console request failed', { error: error as Error });
    return errorResult(500, 'INTERNAL', `Internal error (request ${event.requestContext?.requestId ?? 'unknown'}).`);
  }
};
