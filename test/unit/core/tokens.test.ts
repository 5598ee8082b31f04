import {
  bearerToken,
  createTokenSigner,
  createTokenVerifier,
  generateSigningKeyPair,
  requireScope,
} from '../../../core/auth/tokens';
import { AuthScopeMissingError, AuthTokenInvalidError } from '../../../core/errors';

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

  it('refuses a token signed by an unknown key', async () => {
    const stranger = await generateSigningKeyPair('test');
    const token = await createTokenSigner(stranger.privateJwk, 'iss')({ account: 'a', scopes: [], ttlS: 60 });
    await expect(createTokenVerifier({ issuer: 'iss', jwks: JSON.stringify(pair.jwks) })(token)).rejects.toBeInstanceOf(
      AuthTokenInvalidError,
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
});
