import * as fs from 'node:fs';
import * as path from 'node:path';
import { createTokenSigner, type TokenSigner } from '../../../core/auth/tokens';
import { config } from '../../../core/infra/config';
import { childLogger } from '../../../core/infra/logger';
import type { HttpEvent, HttpHandler, HttpResult } from '../middleware';
import type { ConsoleConfig } from './config-schema';
import { isAppRoute, readConsoleFile, type ConsoleFile } from './files';

const log = childLogger('console');

/** Where the console's built files are: beside the bundled handler (deployed), else the repository's build. */
const candidateRoots = [path.join(__dirname, 'console'), path.join(__dirname, '..', '..', '..', 'console', 'dist')];

/** The account the local cloud's console acts as; its token carries the `admin` scope only. */
const consoleAccount = 'console';
const consoleTokenTtlS = 3600;
/** The local live gateway's path (local/live-gateway.ts), on the same host and port as the API. */
const localLivePath = '/v1/live';

let root: string | undefined;
let signer: { readonly jwk: string; readonly sign: TokenSigner } | undefined;

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
 * The local cloud (it holds a dev signing key) signs the console in with an admin token; a
 * deployed stack never has that key, so its console asks the operator for a token.
 */
async function consoleConfig(event: HttpEvent): Promise<ConsoleConfig> {
  const { auth, liveUrl } = config();
  if (!auth.devSigningJwk) return { local: false, ...(liveUrl ? { liveUrl } : {}) };
  if (signer?.jwk !== auth.devSigningJwk) {
    signer = { jwk: auth.devSigningJwk, sign: createTokenSigner(JSON.parse(auth.devSigningJwk), auth.issuer) };
  }
  const token = await signer.sign({
    account: consoleAccount,
    scopes: ['admin'],
    ttlS: consoleTokenTtlS,
    audience: auth.audience,
  });
  const host = event.headers?.host;
  const local = liveUrl ?? (host ? `ws://${host}${localLivePath}` : undefined);
  return { local: true, token, expiresIn: consoleTokenTtlS, ...(local ? { liveUrl: local } : {}) };
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
      body: JSON.stringify(await consoleConfig(event)),
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
