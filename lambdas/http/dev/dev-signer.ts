import { createTokenSigner, type TokenSigner } from '../../../core/auth/tokens';
import type { TokenClaims } from '../../../core/auth/token-model';
import type { PlatformConfig } from '../../../core/infra/config';

/** Built once per signing key: a local cloud started again in the same process has a new one. */
let signer: { readonly jwk: string; readonly sign: TokenSigner } | undefined;

/**
 * Signs with the local cloud's own dev key; undefined without one (every deployed process),
 * so the local-only routes that call it do not exist there.
 */
export async function signDevToken(
  auth: PlatformConfig['auth'],
  claims: Omit<TokenClaims, 'audience'>,
): Promise<string | undefined> {
  if (!auth.devSigningJwk) return undefined;
  if (signer?.jwk !== auth.devSigningJwk) {
    signer = { jwk: auth.devSigningJwk, sign: createTokenSigner(JSON.parse(auth.devSigningJwk), auth.issuer) };
  }
  return signer.sign({ ...claims, audience: auth.audience });
}
