import * as z from 'zod';
import { accountSchema } from '../../../core/abuse/bans';
import { partyTokenClaims, partyTokenTtlS } from '../../../core/auth/token-model';
import { RequestInvalidError } from '../../../core/errors';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

export const partyTokenRequestSchema = z
  .strictObject({
    leader: accountSchema.describe('The account that will bring the caller into its join: only it may use the token.'),
  })
  .meta({ id: 'PartyTokenRequest' });

/**
 * A party token: the caller lets `leader` seat it in one of the leader's joins (its `party`),
 * for 5 minutes. Signed with the platform's key; good for nothing else (core/auth/token-model.ts).
 */
export const handler = httpHandler({ auth: {}, body: partyTokenRequestSchema }, async ({ body, principal }) => {
  if (body.leader === principal.account) {
    throw new RequestInvalidError('A party token is for another account: the leader is always in its own party.', [
      { field: 'body.leader', message: "is the caller's own account" },
    ]);
  }
  const p = platform();
  const issuedAt = new Date(Math.floor(p.now().getTime() / 1000) * 1000);
  const partyToken = await p.signToken(partyTokenClaims(principal.account, body.leader, issuedAt));
  const expiresAt = new Date(issuedAt.getTime() + partyTokenTtlS * 1000).toISOString();
  return { status: 201, body: { partyToken, expiresAt } };
});
