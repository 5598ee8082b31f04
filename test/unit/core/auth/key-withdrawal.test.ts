import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { JWK } from 'jose';
import {
  createTokenSigner,
  createTokenVerifier,
  generateSigningKeyPair,
  keySetMaxAgeMs,
  keyWithdrawalBoundMs,
  verifiedTokenTrustMs,
  type SigningKeyPair,
} from '../../../../core/auth/tokens';
import { AuthTokenInvalidError } from '../../../../core/errors';

/**
 * A key withdrawn from the identity provider's key set, served over real HTTP as the
 * provider serves it (its OpenID discovery document names the key set). jose's remote key set
 * reads `Date.now` for its cache's age, so the clock here is `Date.now` itself, moved by hand;
 * the verifier is given the same.
 */
let issuer: string;
let server: Server;
let served: JWK[] = [];
let fetches = 0;
let withdrawn: SigningKeyPair;
let kept: SigningKeyPair;
let clock = 0;

beforeAll(async () => {
  withdrawn = await generateSigningKeyPair('withdrawn');
  kept = await generateSigningKeyPair('kept');
  server = createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    if (request.url === '/.well-known/openid-configuration') {
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/.well-known/jwks.json` }));
      return;
    }
    fetches += 1;
    response.end(JSON.stringify({ keys: served }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
  served = [...withdrawn.jwks.keys, ...kept.jwks.keys];
  fetches = 0;
  clock = Date.parse('2026-12-01T12:00:00Z');
  jest.spyOn(Date, 'now').mockImplementation(() => clock);
});
afterEach(() => {
  jest.restoreAllMocks();
});

/** A fresh token (a new `jti`, so never one the verifier has seen) signed with `pair`, valid for an hour. */
async function tokenOf(pair: SigningKeyPair, account: string): Promise<string> {
  return createTokenSigner(
    pair.privateJwk,
    issuer,
  )({
    account,
    scopes: [],
    ttlS: 3600,
    issuedAt: new Date(clock),
    extra: { jti: `${account}-${clock}-${Math.random()}` },
  });
}

function withdraw(): void {
  served = [...kept.jwks.keys];
}

describe('a key withdrawn from the remote key set', () => {
  it(`pins the documented bound (docs/security.md: 60 s) and splits it between the key set's age and the trust in a seen token`, () => {
    expect(keyWithdrawalBoundMs).toBe(60_000);
    expect(keySetMaxAgeMs + verifiedTokenTrustMs).toBe(keyWithdrawalBoundMs);
  });

  // Withdrawn right after a fetch, half-way through the key set's age, and just before it is fetched anew.
  it.each([0, 15_000, keySetMaxAgeMs - 1])(
    'withdrawn %i ms after a fetch: a new token and a seen token signed with it are refused once the bound has passed',
    async (withdrawnAfterMs) => {
      const verify = createTokenVerifier({ issuer, now: () => clock });
      await expect(verify(await tokenOf(kept, 'warmup'))).resolves.toMatchObject({ account: 'warmup' });
      expect(fetches).toBe(1);

      clock += withdrawnAfterMs;
      // Verified just before the withdrawal: this token is now in the verifier's memory.
      const seen = await tokenOf(withdrawn, 'seen');
      await expect(verify(seen)).resolves.toMatchObject({ account: 'seen' });
      withdraw();
      const withdrawalAt = clock;

      clock = withdrawalAt + keyWithdrawalBoundMs;
      const fresh = await tokenOf(withdrawn, 'fresh');
      await expect(verify(fresh)).rejects.toBeInstanceOf(AuthTokenInvalidError);
      await expect(verify(seen)).rejects.toBeInstanceOf(AuthTokenInvalidError);
      // The key the provider kept still works, for new tokens and seen ones.
      await expect(verify(await tokenOf(kept, 'other'))).resolves.toMatchObject({ account: 'other' });
    },
  );

  it('is refused for new tokens as soon as the key set is older than its maximum age', async () => {
    const verify = createTokenVerifier({ issuer, now: () => clock });
    await expect(verify(await tokenOf(withdrawn, 'before'))).resolves.toMatchObject({ account: 'before' });
    withdraw();
    clock += keySetMaxAgeMs - 1;
    // Still the fetched set: no request per verification.
    await expect(verify(await tokenOf(withdrawn, 'cached'))).resolves.toMatchObject({ account: 'cached' });
    expect(fetches).toBe(1);
    clock += 1;
    await expect(verify(await tokenOf(withdrawn, 'after'))).rejects.toThrow('The token is not valid.');
    expect(fetches).toBe(2);
  });

  it('is refused once the bound has passed for a token first verified after the withdrawal, from the set fetched before it', async () => {
    const verify = createTokenVerifier({ issuer, now: () => clock });
    await expect(verify(await tokenOf(kept, 'warmup'))).resolves.toMatchObject({ account: 'warmup' });
    withdraw();
    const withdrawalAt = clock;
    clock += keySetMaxAgeMs - 1;
    const late = await tokenOf(withdrawn, 'late');
    await expect(verify(late)).resolves.toMatchObject({ account: 'late' });
    clock = withdrawalAt + keyWithdrawalBoundMs;
    await expect(verify(late)).rejects.toThrow('The token is not valid.');
  });
});
