import {
  createLocalJWKSet,
  createRemoteJWKSet,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  errors as joseErrors,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
} from 'jose';
import { AuthScopeMissingError, AuthTokenInvalidError } from '../errors';

/** Who is calling, as established by a verified bearer token. */
export interface Principal {
  /** The token's `sub`. */
  readonly account: string;
  readonly scopes: readonly string[];
}

export type TokenVerifier = (token: string) => Promise<Principal>;

export interface VerifierSettings {
  readonly issuer: string;
  readonly audience?: string;
  readonly jwksUrl?: string;
  /** The key set as JSON, when it is known up front (local cloud, tests). */
  readonly jwks?: string;
}

/** Ed25519 signatures are deterministic: the same claims sign to the same token, so a redelivered `joined` can be answered identically without storing tokens. */
const signingAlgorithm = 'EdDSA';

/**
 * Scopes travel the way API Gateway's JWT authorizer reads them: a space-separated `scope`
 * claim, or an `scp` array.
 */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  return [];
}

export function createTokenVerifier(settings: VerifierSettings): TokenVerifier {
  const keySet = settings.jwks
    ? createLocalJWKSet(JSON.parse(settings.jwks) as JSONWebKeySet)
    : createRemoteJWKSet(new URL(settings.jwksUrl ?? 'about:blank'));
  return async (token) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        issuer: settings.issuer,
        audience: settings.audience,
        algorithms: [signingAlgorithm, 'ES256', 'RS256'],
      }));
    } catch (error) {
      const reason = error instanceof joseErrors.JWTExpired ? 'The token has expired.' : 'The token is not valid.';
      throw new AuthTokenInvalidError(reason, { cause: error });
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
      throw new AuthTokenInvalidError('The token has no subject.');
    }
    return { account: payload.sub, scopes: scopesOf(payload) };
  };
}

/** Reads the bearer token of an `Authorization` header; a missing or malformed one is a 401. */
export function bearerToken(header: string | undefined): string {
  const match = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) throw new AuthTokenInvalidError('A bearer token is required in the Authorization header.');
  return match[1];
}

export function requireScope(principal: Principal, scope: string): void {
  if (!principal.scopes.includes(scope)) throw new AuthScopeMissingError(scope);
}

export interface SigningKeyPair {
  /** Private JWK (with `kid`), for the local token issuer only. */
  readonly privateJwk: JWK;
  /** The public half, as a key set that verifiers accept. */
  readonly jwks: JSONWebKeySet;
}

/** A fresh key pair for one run of the local cloud; never written to disk. */
export async function generateSigningKeyPair(kid = `local-${Date.now()}`): Promise<SigningKeyPair> {
  const { privateKey, publicKey } = await generateKeyPair(signingAlgorithm, { extractable: true });
  const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: signingAlgorithm };
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: signingAlgorithm, use: 'sig' };
  return { privateJwk, jwks: { keys: [publicJwk] } };
}

export interface TokenClaims {
  readonly account: string;
  readonly scopes: readonly string[];
  readonly ttlS: number;
  readonly audience?: string;
  /** Fixed issue time, so the same claims give the same token (deterministic EdDSA). */
  readonly issuedAt?: Date;
  /** Further public claims (for example `room`). */
  readonly extra?: Readonly<Record<string, unknown>>;
}

export type TokenSigner = (claims: TokenClaims) => Promise<string>;

export function createTokenSigner(privateJwk: JWK, issuer: string): TokenSigner {
  const keyPromise = importJWK(privateJwk, signingAlgorithm);
  return async (claims) => {
    const issuedAtS = Math.floor((claims.issuedAt ?? new Date()).getTime() / 1000);
    const jwt = new SignJWT({ ...claims.extra, scope: claims.scopes.join(' ') })
      .setProtectedHeader({ alg: signingAlgorithm, kid: privateJwk.kid })
      .setIssuer(issuer)
      .setSubject(claims.account)
      .setIssuedAt(issuedAtS)
      .setExpirationTime(issuedAtS + claims.ttlS);
    if (claims.audience) jwt.setAudience(claims.audience);
    return jwt.sign(await keyPromise);
  };
}
