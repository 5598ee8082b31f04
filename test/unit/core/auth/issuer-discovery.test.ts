import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { discoveryUrlOf } from '../../../../core/auth/issuer-discovery';
import { createTokenSigner, createTokenVerifier, generateSigningKeyPair } from '../../../../core/auth/tokens';
import { AuthTokenInvalidError, DependencyUnavailableError } from '../../../../core/errors';
import { PlatformCache } from '../../../../core/infra/platform-cache';

/**
 * The handlers find the identity provider's keys as API Gateway's JWT authorizer does: the
 * issuer's OpenID discovery document names the key set (`jwks_uri`), served here over real
 * HTTP at an address no one could guess from the issuer alone.
 */
let server: Server;
let origin: string;
/** Like Cognito's: a path under the host, so discovery is under the path too. */
let issuer: string;
let requests: string[] = [];
/** What the discovery document answers: a status and a body. */
let discovery: { status: number; body: unknown };
let keysPath = '/oauth2/v1/keys';
let keys: Awaited<ReturnType<typeof generateSigningKeyPair>>;
let clock = 0;

beforeAll(async () => {
  keys = await generateSigningKeyPair('idp-key');
  server = createServer((request, response) => {
    requests.push(request.url ?? '');
    if (request.url === '/pool-1/.well-known/openid-configuration') {
      response.writeHead(discovery.status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(discovery.body));
      return;
    }
    if (request.url === keysPath) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(keys.jwks));
      return;
    }
    response.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  issuer = `${origin}/pool-1`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  requests = [];
  keysPath = '/oauth2/v1/keys';
  discovery = { status: 200, body: { issuer, jwks_uri: `${origin}${keysPath}`, token_endpoint: `${origin}/t` } };
  clock = Date.parse('2026-12-01T12:00:00Z');
});

async function tokenFor(account: string): Promise<string> {
  return createTokenSigner(
    keys.privateJwk,
    issuer,
  )({ account, scopes: ['play'], ttlS: 3600, issuedAt: new Date(clock) });
}

function verifier() {
  return createTokenVerifier({ issuer, now: () => clock }, new PlatformCache({ nowMs: () => clock }));
}

describe("verifying through the issuer's OpenID discovery", () => {
  it('finds the discovery document under the issuer, with or without its trailing slash', () => {
    expect(discoveryUrlOf('https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc')).toBe(
      'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_abc/.well-known/openid-configuration',
    );
    expect(discoveryUrlOf('https://idp.example.com/')).toBe('https://idp.example.com/.well-known/openid-configuration');
  });

  it('verifies a token with the key set the discovery document names', async () => {
    const verify = verifier();
    await expect(verify(await tokenFor('alice'))).resolves.toEqual({ account: 'alice', scopes: ['play'] });
    expect(requests).toEqual(['/pool-1/.well-known/openid-configuration', '/oauth2/v1/keys']);
  });

  it('keeps the discovered address for its bound, then discovers again and follows a key set that moved', async () => {
    const verify = verifier();
    await verify(await tokenFor('alice'));
    clock += 60_000;
    await verify(await tokenFor('bob'));
    expect(requests.filter((url) => url.includes('openid-configuration'))).toHaveLength(1);

    keysPath = '/oauth2/v2/keys';
    discovery = { status: 200, body: { issuer, jwks_uri: `${origin}${keysPath}` } };
    clock += 5 * 60_000;
    await expect(verify(await tokenFor('carol'))).resolves.toMatchObject({ account: 'carol' });
    expect(requests.filter((url) => url.includes('openid-configuration'))).toHaveLength(2);
    expect(requests.at(-1)).toBe('/oauth2/v2/keys');
  });

  it.each([
    ['answers HTTP 500', () => (discovery = { status: 500, body: { message: 'down' } })],
    ['names no jwks_uri', () => (discovery = { status: 200, body: { issuer } })],
    ['names a key set that is not there', () => (discovery = { status: 200, body: { jwks_uri: `${origin}/gone` } })],
  ])('a discovery document that %s is a 503 UNAVAILABLE with Retry-After, not a 401 or a 500', async (_name, fail) => {
    fail();
    const verify = verifier();
    const failure = await verify(await tokenFor('alice')).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect(failure).toMatchObject({
      status: 503,
      code: 'UNAVAILABLE',
      headers: { 'retry-after': '2' },
      details: { reason: 'identity-provider' },
    });
  });

  it('an identity provider that cannot be reached is a 503, and a failed discovery is not kept', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unreachable = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/pool-1`;
    await new Promise((resolve) => closed.close(resolve));
    const token = await createTokenSigner(keys.privateJwk, unreachable)({ account: 'alice', scopes: [], ttlS: 60 });
    await expect(createTokenVerifier({ issuer: unreachable })(token)).rejects.toMatchObject({
      status: 503,
      code: 'UNAVAILABLE',
    });

    discovery = { status: 503, body: {} };
    const verify = verifier();
    await expect(verify(await tokenFor('alice'))).rejects.toBeInstanceOf(DependencyUnavailableError);
    discovery = { status: 200, body: { jwks_uri: `${origin}${keysPath}` } };
    await expect(verify(await tokenFor('alice'))).resolves.toMatchObject({ account: 'alice' });
  });

  it('a token whose key the discovered set lacks is still the caller’s 401', async () => {
    const other = await generateSigningKeyPair('not-published');
    const token = await createTokenSigner(other.privateJwk, issuer)({ account: 'mallory', scopes: [], ttlS: 60 });
    await expect(verifier()(token)).rejects.toBeInstanceOf(AuthTokenInvalidError);
  });
});
