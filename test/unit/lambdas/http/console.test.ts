import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeJwt } from 'jose';
import { generateSigningKeyPair } from '../../../../core/auth/tokens';
import { provideConfigSecrets, resetConfig } from '../../../../core/infra/config';
import { consoleFilePath, readConsoleFile } from '../../../../lambdas/http/console/files';
import { consoleConfigSchema } from '../../../../lambdas/http/console/config-schema';
import { handler } from '../../../../lambdas/http/console/serve';
import { handler as localConfig } from '../../../../lambdas/http/dev/console-config';
import type { HttpEvent, HttpResult } from '../../../../lambdas/http/middleware';

/** The console's static files and config.json (lambdas/http/console/). */
let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'roomkeeper-console-'));
  mkdirSync(join(root, 'assets'));
  writeFileSync(join(root, 'index.html'), '<!doctype html><title>console</title>');
  writeFileSync(join(root, 'assets', 'index-1a2b.js'), 'export {};');
  writeFileSync(join(root, '.env'), 'SECRET=1');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('consoleFilePath', () => {
  it.each([
    ['../package.json'],
    ['assets/../../etc/passwd.json'],
    ['/etc/passwd.txt'],
    ['assets//index.js'],
    ['.env'],
    ['assets\\..\\x.js'],
    ['index.html\0.js'],
    ['server.ts'],
    [''],
  ])('refuses %j before touching the disk', (requested) => {
    expect(consoleFilePath(root, requested)).toBeUndefined();
  });

  it('resolves files inside the root', () => {
    expect(consoleFilePath(root, 'assets/index-1a2b.js')).toBe(join(root, 'assets', 'index-1a2b.js'));
  });
});

describe('readConsoleFile', () => {
  it('types each file and lets browsers keep hashed assets for good, never index.html', async () => {
    const asset = await readConsoleFile(root, 'assets/index-1a2b.js');
    expect(asset).toMatchObject({
      contentType: 'text/javascript; charset=utf-8',
      cacheControl: 'public, max-age=31536000, immutable',
    });
    expect((await readConsoleFile(root, 'index.html'))?.cacheControl).toBe('no-cache');
    expect(await readConsoleFile(root, 'missing.js')).toBeUndefined();
  });
});

const event = (path?: string, rawPath = path === undefined ? '/console' : `/console/${path}`): HttpEvent =>
  ({
    rawPath,
    headers: { host: '127.0.0.1:3000' },
    pathParameters: path === undefined ? undefined : { path },
    requestContext: { requestId: 'test' },
  }) as unknown as HttpEvent;

const call = (path?: string, rawPath?: string) =>
  handler(event(path, rawPath), {} as never) as Promise<HttpResult & { body: string }>;

describe('GET /console/config.json', () => {
  const saved = { ...process.env };
  beforeEach(() => {
    Object.assign(process.env, { TABLE_NAME: 'rooms', AUTH_ISSUER: 'https://id.example', AUTH_AUDIENCE: 'api' });
    resetConfig();
  });
  afterEach(() => {
    process.env = { ...saved };
    resetConfig();
  });

  it('deployed (no dev key): no token, the live URL the stack gives', async () => {
    process.env.LIVE_URL = 'wss://abc.execute-api.us-east-1.amazonaws.com/live';
    const answer = await call('config.json');
    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.['cache-control']).toBe('no-store');
    expect(consoleConfigSchema.parse(JSON.parse(answer.body))).toEqual({
      local: false,
      liveUrl: 'wss://abc.execute-api.us-east-1.amazonaws.com/live',
    });
  });

  it('deployed code never mints a token, even where a dev key reached its environment', async () => {
    const keys = await generateSigningKeyPair('console-test');
    provideConfigSecrets({ DEV_SIGNING_JWK: JSON.stringify(keys.privateJwk) });
    expect(consoleConfigSchema.parse(JSON.parse((await call('config.json')).body))).toEqual({ local: false });
  });

  it('the local-only route: an admin token of the dev key, and its own live socket', async () => {
    const keys = await generateSigningKeyPair('console-test');
    provideConfigSecrets({ DEV_SIGNING_JWK: JSON.stringify(keys.privateJwk) });
    const answer = (await localConfig(event('config.json'), {} as never)) as HttpResult & { body: string };
    expect(answer.headers?.['cache-control']).toBe('no-store');
    const config = consoleConfigSchema.parse(JSON.parse(answer.body));
    expect(config).toMatchObject({ local: true, liveUrl: 'ws://127.0.0.1:3000/v1/live', expiresIn: 3600 });
    expect(decodeJwt(config.token!)).toMatchObject({
      sub: 'console',
      scope: 'admin',
      iss: 'https://id.example',
      aud: 'api',
    });
  });

  it('the local-only route does not exist without the dev key', async () => {
    const answer = (await localConfig(event('config.json'), {} as never)) as HttpResult;
    expect(answer.statusCode).toBe(404);
  });
});

describe('GET /console', () => {
  it('redirects to /console/', async () => {
    const answer = await call();
    expect(answer).toMatchObject({ statusCode: 308, headers: { location: '/console/' } });
  });

  it('serves the app, not another redirect, for /console/ (API Gateway routes it to `/console` too)', async () => {
    const answer = await call(undefined, '/console/');
    // index.html where console/dist is built, else the 404 that says to build it: never a redirect.
    expect(answer.headers?.location).toBeUndefined();
    expect(answer.statusCode === 200 ? answer.headers?.['content-type'] : answer.body).toMatch(
      /^text\/html|npm run build:console/,
    );
  });
});
