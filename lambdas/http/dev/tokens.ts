import * as z from 'zod';
import { scopeListSchema } from '../../../core/auth/schema';
import { RouteNotFoundError } from '../../../core/errors';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { signDevToken } from './dev-signer';

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

/**
 * Local cloud only: issues tokens from the run's own signing key. The route is never
 * deployed, and without the key (any deployed process) it does not exist either.
 */
export const handler = httpHandler({ auth: 'public', body: devTokenRequestSchema }, async ({ body }) => {
  const accessToken = await signDevToken(platform().config.auth, {
    account: body.account,
    scopes: body.scopes,
    ttlS: body.ttlS,
  });
  if (accessToken === undefined) throw new RouteNotFoundError('POST', '/v1/dev/tokens');
  return { status: 200, body: { access_token: accessToken, token_type: 'Bearer', expires_in: body.ttlS } };
});
