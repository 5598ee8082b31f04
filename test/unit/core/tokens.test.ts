import { standbyOwner } from '../../../core/pool/warm-pool';
import {
  defaultPlatformIssuer,
  gameServerAccount,
  gameServerAudience,
  isReservedAccount,
  gameServerTokenClaims,
  joinedTokenClaims,
  roomAudience,
} from '../../../core/auth/token-model';
import {
  bearerToken,
  createPlatformTokenVerifier,
  createTokenSigner,
  createTokenVerifier,
  verifiedTokenTrustMs,
  generateSigningKeyPair,
  requireScope,
} from '../../../core/auth/tokens';
import { AuthScopeMissingError, AuthTokenInvalidError } from '../../../core/errors';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { apiGatewayAccepts, audienceShapes } from '../../helpers/token-shapes';

describe('tokens', () => {
  let pair: Awaited<ReturnType<typeof generateSigningKeyPair>>;
  beforeAll(async () => {
    pair = await generateSigningKeyPair('test');
  });

  it('verifies a token it signed and reads account and scopes', async () => {
    const token = await createTokenSigner(
      pair.privateJwk,
      'iss',
    )({ account: 'alice', scopes: ['admin', 'x'], ttlS: 60 });
    const verify = createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks) });
    await expect(verify(token)).resolves.toEqual({ account: 'alice', scopes: ['admin', 'x'] });
  });

  it.each([
    ['another issuer', { issuer: 'other' }, {}],
    ['another audience', { issuer: 'iss', audience: 'room-1' }, { audience: 'room-2' }],
  ])('refuses a token from %s', async (_name, verifierSettings, claims) => {
    const token = await createTokenSigner(pair.privateJwk, 'iss')({ account: 'a', scopes: [], ttlS: 60, ...claims });
    const verify = createTokenVerifier({ ...verifierSettings, jwks: JSON.stringify(pair.jwks) });
    await expect(verify(token)).rejects.toBeInstanceOf(AuthTokenInvalidError);
  });

  it('refuses an expired token with a message that says so', async () => {
    const token = await createTokenSigner(pair.privateJwk, 'iss')({ account: 'a', scopes: [], ttlS: -10 });
    const verify = createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks) });
    await expect(verify(token)).rejects.toThrow('The token has expired.');
  });

  describe('a token verified once', () => {
    it('is taken again without its signature checked anew, but only until its exp', async () => {
      let clock = Date.now();
      const token = await createTokenSigner(pair.privateJwk, 'iss')({ account: 'a', scopes: [], ttlS: 30 });
      const verify = createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks), now: () => clock });
      await expect(verify(token)).resolves.toEqual({ account: 'a', scopes: [] });
      clock += 29_000;
      await expect(verify(token)).resolves.toEqual({ account: 'a', scopes: [] });
      clock += 2_000;
      await expect(verify(token)).rejects.toThrow('The token has expired.');
    });

    it(`is trusted at most ${verifiedTokenTrustMs} ms, so a key withdrawn from the key set stops working within that`, async () => {
      let clock = Date.now();
      const token = await createTokenSigner(pair.privateJwk, 'iss')({ account: 'a', scopes: [], ttlS: 3_600 });
      const cache = new PlatformCache();
      await createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks), now: () => clock }, cache)(token);
      // The same process after the key was withdrawn: only what it remembers can let the token in.
      const stranger = await generateSigningKeyPair('test');
      const withdrawn = createTokenVerifier(
        { issuer: 'iss', jwks: JSON.stringify(stranger.jwks), now: () => clock },
        cache,
      );
      clock += verifiedTokenTrustMs - 1;
      await expect(withdrawn(token)).resolves.toEqual({ account: 'a', scopes: [] });
      clock += 1;
      await expect(withdrawn(token)).rejects.toBeInstanceOf(AuthTokenInvalidError);
    });

    it('never lets a refused token in on a later try', async () => {
      const stranger = await generateSigningKeyPair('test');
      const forged = await createTokenSigner(stranger.privateJwk, 'iss')({ account: 'a', scopes: [], ttlS: 60 });
      const verify = createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks) });
      await expect(verify(forged)).rejects.toBeInstanceOf(AuthTokenInvalidError);
      await expect(verify(forged)).rejects.toBeInstanceOf(AuthTokenInvalidError);
    });
  });

  it('refuses a token signed by an unknown key', async () => {
    const stranger = await generateSigningKeyPair('test');
    const token = await createTokenSigner(stranger.privateJwk, 'iss')({ account: 'a', scopes: [], ttlS: 60 });
    await expect(createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks) })(token)).rejects.toBeInstanceOf(
      AuthTokenInvalidError,
    );
  });

  describe('a subject the platform reserves', () => {
    const verify = () => createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks) });
    const tokenFor = (account: string) =>
      createTokenSigner(pair.privateJwk, 'iss')({ account, scopes: ['admin'], ttlS: 60 });

    it.each([standbyOwner, '@', '@platform', gameServerAccount('r1'), 'server:'])('refuses %p', async (account) => {
      expect(isReservedAccount(account)).toBe(true);
      await expect(verify()(await tokenFor(account))).rejects.toThrow(
        expect.objectContaining({
          name: 'AuthTokenInvalidError',
          code: 'UNAUTHORIZED',
          message: expect.stringContaining('an account name the platform reserves for itself'),
        }),
      );
    });

    // Subjects identity providers really issue: emails, Auth0's `<client>@clients`, `provider|id`.
    it.each(['alice@example.com', 'abc123@clients', 'google-oauth2|123', 'servers', 'a@standby'])(
      'accepts %p',
      async (account) => {
        expect(isReservedAccount(account)).toBe(false);
        await expect(verify()(await tokenFor(account))).resolves.toMatchObject({ account });
      },
    );
  });

  it.each([undefined, '', 'Bearer', 'Basic abc', 'Bearer a b'])('bearerToken refuses %p', (header) => {
    expect(() => bearerToken(header)).toThrow(AuthTokenInvalidError);
  });

  it('bearerToken reads the token', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
  });

  it('requireScope demands the scope', () => {
    expect(() => requireScope({ account: 'a', scopes: ['x'] }, 'admin')).toThrow(AuthScopeMissingError);
    expect(() => requireScope({ account: 'a', scopes: ['admin'] }, 'admin')).not.toThrow();
  });

  describe('the player and admin API verifier (identity provider tokens only)', () => {
    const audience = 'roomkeeper-api';
    const verifier = () => createTokenVerifier({ issuer: 'idp', audience, jwks: JSON.stringify(pair.jwks) });

    it.each(audienceShapes(audience).map((shape) => [shape.name, shape] as const))(
      'agrees with API Gateway on a token with %s',
      async (_name, shape) => {
        const token = await createTokenSigner(
          pair.privateJwk,
          'idp',
        )({ account: 'alice', scopes: ['play'], ttlS: 60, extra: shape.claims });
        const outcome = verifier()(token);
        if (apiGatewayAccepts(shape.claims, [audience])) {
          await expect(outcome).resolves.toEqual({ account: 'alice', scopes: ['play'] });
        } else {
          await expect(outcome).rejects.toThrow('The token is not for this API');
        }
      },
    );

    it('accepts a Cognito-style access token (client_id, no aud) and reads its scopes', async () => {
      const token = await createTokenSigner(
        pair.privateJwk,
        'idp',
      )({ account: 'alice', scopes: ['admin'], ttlS: 60, extra: { client_id: audience, token_use: 'access' } });
      await expect(verifier()(token)).resolves.toEqual({ account: 'alice', scopes: ['admin'] });
    });

    it.each([
      ['a game server token (platform issuer, game-server audience)', defaultPlatformIssuer, gameServerAudience],
      ['a joined-player token (platform issuer, room audience)', defaultPlatformIssuer, roomAudience('r1')],
      ['a platform-issued token that even names the API audience', defaultPlatformIssuer, audience],
      ["a token of the identity provider's issuer with a room audience", 'idp', roomAudience('r1')],
    ])('refuses %s even when its key is trusted by mistake', async (_name, issuer, tokenAudience) => {
      const token = await createTokenSigner(
        pair.privateJwk,
        issuer,
      )({ account: 'server:r1', scopes: ['admin'], ttlS: 60, audience: tokenAudience, extra: { room: 'r1' } });
      // A verifier whose issuer is the platform's: keys and issuer both "match", yet it refuses.
      for (const verify of [
        verifier(),
        createTokenVerifier({ issuer, audience: tokenAudience, jwks: JSON.stringify(pair.jwks) }),
      ]) {
        await expect(verify(token)).rejects.toThrow('issued by the platform');
      }
    });

    it('refuses tokens of a platform issuer configured under another name', async () => {
      const token = await createTokenSigner(
        pair.privateJwk,
        'rk-prod-platform',
      )({ account: 'a', scopes: [], ttlS: 60, audience });
      const verify = createTokenVerifier({
        issuer: 'idp',
        audience,
        jwks: JSON.stringify(pair.jwks),
        platformIssuer: 'rk-prod-platform',
      });
      await expect(verify(token)).rejects.toThrow('issued by the platform');
    });

    it.each(['not-a-jwt', 'a.b.c', ''])('refuses %p as not valid', async (token) => {
      await expect(verifier()(token)).rejects.toThrow('The token is not valid.');
    });
  });

  describe('the platform token verifier', () => {
    const sign = () => createTokenSigner(pair.privateJwk, defaultPlatformIssuer);
    const verify = () =>
      createPlatformTokenVerifier({ issuer: defaultPlatformIssuer, jwks: JSON.stringify(pair.jwks) });

    it("reads a game server token's account, scopes and room for the game-server audience", async () => {
      const token = await sign()(gameServerTokenClaims('r1', ['chat', 'admin']));
      await expect(verify()(token, gameServerAudience)).resolves.toEqual({
        account: 'server:r1',
        scopes: ['chat'],
        room: 'r1',
      });
    });

    it('refuses a joined-player token where a game server token is expected, and the reverse', async () => {
      const joined = await sign()(
        joinedTokenClaims({ account: 'alice', roomId: 'r1', scopes: [], issuedAt: new Date() }),
      );
      await expect(verify()(joined, gameServerAudience)).rejects.toBeInstanceOf(AuthTokenInvalidError);
      await expect(verify()(joined, roomAudience('r1'))).resolves.toMatchObject({ account: 'alice', room: 'r1' });
      const server = await sign()(gameServerTokenClaims('r1', []));
      await expect(verify()(server, roomAudience('r1'))).rejects.toBeInstanceOf(AuthTokenInvalidError);
    });

    it("refuses an identity provider's token with the game-server audience", async () => {
      const token = await createTokenSigner(
        pair.privateJwk,
        'idp',
      )({ account: 'server:r1', scopes: ['chat'], ttlS: 60, audience: gameServerAudience, extra: { room: 'r1' } });
      await expect(verify()(token, gameServerAudience)).rejects.toBeInstanceOf(AuthTokenInvalidError);
    });
  });
});
