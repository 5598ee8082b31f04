import * as z from 'zod';
import { scopeListSchema } from '../../../core/auth/schema';
import { createTokenSigner, type TokenSigner } from '../../../core/auth/tokens';
import { RouteNotFoundError } from '../../../core/errors';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

export const devTokenRequestSchema = z
  .strictObject({
    account: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9_.@-]+$/, 'must be letters, digits, _ . @ or -'),
    scopes: scopeListSchema,
    ttlS: z.number().int().min(1).max(86_400).default(3600),
  })
  .meta({ id: 'DevTokenRequest' });

/** Built once per signing key: a local cloud started again in the same process has a new one. */
let signer: { readonly jwk: string; readonly sign: TokenSigner } | undefined;

/**
 * Local cloud only: issues tokens from the run's own signing key. The route is never
 * deployed, and without the key (any deployed process) it does not exist either.
 */
export const handler = httpHandler({ auth: 'public', body: devTokenRequestSchema }, async ({ body }) => {
  const { auth } = platform().config;
  if (!auth.devSigningJwk) throw new RouteNotFoundError('POST', '/v1/dev/tokens');
  if (signer?.jwk !== auth.devSigningJwk) {
    signer = { jwk: auth.devSigningJwk, sign: createTokenSigner(JSON.parse(auth.devSigningJwk), auth.issuer) };
  }
  const accessToken = await signer.sign({
    account: body.account,
    scopes: body.scopes,
    ttlS: body.ttlS,
    audience: auth.audience,
  });
  return { status: 200, body: { access_token: accessToken, token_type: 'Bearer', expires_in: body.ttlS } };
});
