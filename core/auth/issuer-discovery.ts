import { createRemoteJWKSet, errors as joseErrors, type JWTVerifyGetKey } from 'jose';
import * as z from 'zod';
import { DependencyUnavailableError } from '../errors';
import type { PlatformCache } from '../infra/platform-cache';

/**
 * Where an issuer publishes its OpenID discovery document: the issuer without its trailing
 * slashes, then `/.well-known/openid-configuration` (OpenID Connect Discovery 1.0, section 4).
 * API Gateway's JWT authorizer finds the issuer's keys the same way, from the same issuer.
 */
export function discoveryUrlOf(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/** The one field of the discovery document the handlers use; the rest is the identity provider's. */
const discoveryDocumentSchema = z.object({ jwks_uri: z.url() });

/** How long one request to the identity provider may take: the same as jose's key set fetch. */
const identityProviderTimeoutMs = 5_000;

/** Seconds a client waits before trying again when the identity provider cannot be read. */
const identityProviderRetryAfterS = 2;

/**
 * The key set of tokens `issuer` signs, found as API Gateway's JWT authorizer finds it: the
 * issuer's discovery document names the key set (`jwks_uri`). The discovered address is
 * kept for the cache's `issuerKeySetUrl` bound; the keys themselves as `remoteKeySet` keeps them.
 * An identity provider that cannot be read (unreachable, slow, answering other than 200, or
 * with a document or key set that does not parse) is a 503 `UNAVAILABLE`: the caller's
 * token may be good. A key set without the token's key is the token's fault (401).
 */
export function discoveredKeySet(
  issuer: string,
  cache: PlatformCache,
  remoteKeySet: (url: URL) => ReturnType<typeof createRemoteJWKSet>,
): JWTVerifyGetKey {
  let current: { readonly url: string; readonly keySet: ReturnType<typeof createRemoteJWKSet> } | undefined;
  return async (header, token) => {
    const url = await cache.read('issuerKeySetUrl', issuer, () => discoverKeySetUrl(issuer));
    // A new address (the identity provider moved its keys) starts a key set of its own.
    if (current?.url !== url) current = { url, keySet: remoteKeySet(new URL(url)) };
    try {
      return await current.keySet(header, token);
    } catch (error) {
      if (error instanceof joseErrors.JWKSNoMatchingKey || error instanceof joseErrors.JWKSMultipleMatchingKeys) {
        throw error;
      }
      throw identityProviderUnavailable('its key set could not be read', error);
    }
  };
}

async function discoverKeySetUrl(issuer: string): Promise<string> {
  let response: Response;
  try {
    response = await fetch(discoveryUrlOf(issuer), {
      headers: { accept: 'application/json' },
      signal: AbortSignal.timeout(identityProviderTimeoutMs),
    });
  } catch (error) {
    throw identityProviderUnavailable('its OpenID discovery document could not be fetched', error);
  }
  if (response.status !== 200) {
    throw identityProviderUnavailable(`its OpenID discovery document answered HTTP ${response.status}`);
  }
  const body: unknown = await response.json().catch(() => undefined);
  const parsed = discoveryDocumentSchema.safeParse(body);
  if (!parsed.success) throw identityProviderUnavailable('its OpenID discovery document names no valid jwks_uri');
  return parsed.data.jwks_uri;
}

function identityProviderUnavailable(why: string, cause?: unknown): DependencyUnavailableError {
  return new DependencyUnavailableError(
    `The identity provider's signing keys cannot be read (${why}); retry in ${identityProviderRetryAfterS} s.`,
    { retryAfterS: identityProviderRetryAfterS, cause, details: { reason: 'identity-provider' } },
  );
}
