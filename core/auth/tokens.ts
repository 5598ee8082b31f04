import {
  createLocalJWKSet,
  createRemoteJWKSet,
  decodeJwt,
  exportJWK,
  generateKeyPair,
  importJWK,
  jwtVerify,
  SignJWT,
  errors as joseErrors,
  type JSONWebKeySet,
  type JWK,
  type JWTPayload,
  type JWTVerifyGetKey,
} from 'jose';
import { AuthScopeMissingError, AuthTokenInvalidError, DependencyUnavailableError } from '../errors';
import { discoveredKeySet } from './issuer-discovery';
import {
  acceptsAudience,
  defaultPlatformIssuer,
  isPlatformMinted,
  isReservedAccount,
  reservedAccountPrefixes,
  type Principal,
  type TokenClaims,
} from './token-model';
import { PlatformCache } from '../infra/platform-cache';

export type { Principal } from './token-model';

export type TokenVerifier = (token: string) => Promise<Principal>;

export interface VerifierSettings {
  /**
   * The identity provider's `iss`. Without `jwks`, its OpenID discovery document names the
   * key set (core/auth/issuer-discovery.ts), as it does for API Gateway's JWT authorizer.
   */
  readonly issuer: string;
  /** The API's audience: `aud`, or `client_id` when `aud` is absent. Required of every token when set. */
  readonly audience?: string;
  /** The key set as JSON, when it is known up front (local cloud, tests). */
  readonly jwks?: string;
  /** `iss` of the platform's own tokens, refused here whatever the keys say. @default roomkeeper-platform */
  readonly platformIssuer?: string;
  /** The clock tokens are judged by (epoch ms). @default Date.now */
  readonly now?: () => number;
}

/**
 * The longest a key withdrawn from the identity provider's key set keeps working, for a token
 * a handler has already seen and for a new one alike (docs/security.md). Split in two:
 *
 * ```
 *  F: key set fetched   W ≥ F: key withdrawn   F + keySetMaxAgeMs: the next verification fetches
 *  |--------------------|----------------------|  anew; a NEW token with that key is refused
 *  a token verified from that copy, at t < F + keySetMaxAgeMs, is trusted until
 *  t + verifiedTokenTrustMs < F + keyWithdrawalBoundMs ≤ W + keyWithdrawalBoundMs
 * ```
 */
export const keyWithdrawalBoundMs = 60_000;

/**
 * How old the fetched key set may be before a verification fetches it again (jose's
 * `cacheMaxAge`, whose own default is 10 minutes).
 */
export const keySetMaxAgeMs = 30_000;

/**
 * How soon after a fetch a token with a key id the set does not hold may fetch it again
 * (jose's `cooldownDuration`): a key the identity provider just added works within this, and
 * tokens with made-up key ids cost at most one fetch per this span.
 */
const keySetCooldownMs = 10_000;

/**
 * How long a verified token is taken on trust (bounded by its own `exp`): with the key set's
 * age, the longest a withdrawn key keeps working for a token already seen.
 */
export const verifiedTokenTrustMs = keyWithdrawalBoundMs - keySetMaxAgeMs;

/** Ed25519 signatures are deterministic: the same claims sign to the same token, so a redelivered `joined` can be answered identically without storing tokens. */
const signingAlgorithm = 'EdDSA';
const acceptedAlgorithms = [signingAlgorithm, 'ES256', 'RS256'];

/**
 * Scopes travel the way API Gateway's JWT authorizer reads them: a space-separated `scope`
 * claim, or an `scp` array.
 */
function scopesOf(payload: JWTPayload): string[] {
  if (typeof payload.scope === 'string') return payload.scope.split(' ').filter(Boolean);
  if (Array.isArray(payload.scp)) return payload.scp.filter((s): s is string => typeof s === 'string');
  return [];
}

function invalid(error: unknown): AuthTokenInvalidError {
  const reason = error instanceof joseErrors.JWTExpired ? 'The token has expired.' : 'The token is not valid.';
  return new AuthTokenInvalidError(reason, { cause: error });
}

function localKeySet(jwks: string): JWTVerifyGetKey {
  return createLocalJWKSet(JSON.parse(jwks) as JSONWebKeySet);
}

function remoteKeySet(url: URL) {
  return createRemoteJWKSet(url, { cacheMaxAge: keySetMaxAgeMs, cooldownDuration: keySetCooldownMs });
}

const reservedAccountRefused = `The token's subject is an account name the platform reserves for itself (one starting with ${reservedAccountPrefixes.map((prefix) => `'${prefix}'`).join(' or ')}); the player and admin API accept no such account.`;

const platformTokenRefused =
  'The token was issued by the platform for a game server or a room; the player and admin API accept only tokens of the identity provider.';

/**
 * Verifies the tokens of the player and admin API: the identity provider's issuer and keys,
 * and the API's audience read as API Gateway's JWT authorizer reads it. Tokens the platform
 * minted for game servers and rooms are refused by their claims before any key is tried,
 * so a key set that wrongly holds the platform's key still lets none of them in. A `sub` the
 * platform reserves (`isReservedAccount`: the owner of unassigned standby servers, a game
 * server's own account) is refused too, so no identity provider account can be either.
 */
export function createTokenVerifier(settings: VerifierSettings, cache = new PlatformCache()): TokenVerifier {
  const keySet = settings.jwks ? localKeySet(settings.jwks) : discoveredKeySet(settings.issuer, cache, remoteKeySet);
  const platformIssuer = settings.platformIssuer ?? defaultPlatformIssuer;
  const now = settings.now ?? Date.now;
  return async (token) => {
    const at = now();
    const known = await cache.peek<VerifiedToken>('verifiedToken', token);
    if (known && at < known.until) return known.principal;
    let claimed: JWTPayload;
    try {
      claimed = decodeJwt(token);
    } catch (error) {
      throw invalid(error);
    }
    // Read before the signature is checked: used only to refuse, never to grant.
    if (isPlatformMinted(claimed, platformIssuer)) throw new AuthTokenInvalidError(platformTokenRefused);
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        issuer: settings.issuer,
        algorithms: acceptedAlgorithms,
        currentDate: new Date(at),
      }));
    } catch (error) {
      // The identity provider could not be read: nothing is known about the token yet.
      if (error instanceof DependencyUnavailableError) throw error;
      throw invalid(error);
    }
    if (settings.audience !== undefined && !acceptsAudience(payload, settings.audience)) {
      throw new AuthTokenInvalidError(
        'The token is not for this API: its aud (or client_id, when it has no aud) must name the API audience.',
      );
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
      throw new AuthTokenInvalidError('The token has no subject.');
    }
    if (isReservedAccount(payload.sub)) throw new AuthTokenInvalidError(reservedAccountRefused);
    const principal: Principal = { account: payload.sub, scopes: scopesOf(payload) };
    // Trusted until its own exp, and never past verifiedTokenTrustMs (the key-withdrawal bound).
    const until = Math.min(at + verifiedTokenTrustMs, payload.exp === undefined ? Infinity : payload.exp * 1000);
    if (until > at) cache.remember<VerifiedToken>('verifiedToken', token, { principal, until });
    return principal;
  };
}

/**
 * A token whose signature and claims were verified: a client sends one token for many calls,
 * and the signature check is the costliest part of a call. Positive results only.
 */
interface VerifiedToken {
  readonly principal: Principal;
  /** Epoch ms, judged by the verifier's own clock. */
  readonly until: number;
}

/** What a platform-minted token says, once its issuer, key and audience are checked. */
interface PlatformTokenClaims extends Principal {
  /** The `room` claim, when the token names one. */
  readonly room?: string;
  /** The `ldr` claim (a party token's leader), when the token names one. */
  readonly leader?: string;
}

/** Verifies a token the platform minted, for exactly one platform audience. */
export type PlatformTokenVerifier = (token: string, audience: string) => Promise<PlatformTokenClaims>;

export function createPlatformTokenVerifier(settings: { issuer: string; jwks: string }): PlatformTokenVerifier {
  const keySet = localKeySet(settings.jwks);
  return async (token, audience) => {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, keySet, {
        issuer: settings.issuer,
        audience,
        algorithms: [signingAlgorithm],
      }));
    } catch (error) {
      throw invalid(error);
    }
    if (typeof payload.sub !== 'string' || payload.sub.length === 0) {
      throw new AuthTokenInvalidError('The token has no subject.');
    }
    return {
      account: payload.sub,
      scopes: scopesOf(payload),
      ...(typeof payload.room === 'string' ? { room: payload.room } : {}),
      ...(typeof payload.ldr === 'string' ? { leader: payload.ldr } : {}),
    };
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
