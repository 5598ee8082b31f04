import { decodeJwt } from 'jose';
import { AuthTokenInvalidError, DependencyUnavailableError, RequestInvalidError, type FieldIssue } from '../errors';
import { partyAudience } from './token-model';
import type { PlatformTokenVerifier, TokenVerifier } from './tokens';

/**
 * How a join's `party` proves its members (docs/api.md "Party joins"): each entry is either the
 * member's own access token (several players signed in on one device), or a party token the
 * member minted for this caller (`POST /v1/me/party-tokens`). Either way the member consented
 * to be seated by this caller; nothing else about the member is taken from the caller.
 */

export interface PartyVerifiers {
  /** The identity provider's tokens (the player API's bearer tokens). */
  readonly verifyToken: TokenVerifier;
  /** Tokens the platform minted, for one platform audience. */
  readonly verifyPlatformToken: PlatformTokenVerifier;
}

/** A member the caller proved: its account, and the scopes its member entry carries (none by a party token). */
export interface ProvenMember {
  readonly account: string;
  readonly scopes: readonly string[];
}

/**
 * Every entry verified (signature, expiry; a party token's leader is the caller), the accounts
 * distinct and not the caller's. Any bad entry: 400 BAD_REQUEST naming each (`body.party[i]`).
 * The identity provider unreachable: its 503, as for the caller's own token.
 */
export async function verifyParty(
  entries: readonly string[],
  leader: string,
  verifiers: PartyVerifiers,
): Promise<ProvenMember[]> {
  const settled = await Promise.allSettled(entries.map((entry) => memberOf(entry, leader, verifiers)));
  const unavailable = settled.find(
    (result) => result.status === 'rejected' && result.reason instanceof DependencyUnavailableError,
  );
  if (unavailable?.status === 'rejected') throw unavailable.reason;
  const issues: FieldIssue[] = [];
  const seen = new Set<string>();
  const members: ProvenMember[] = [];
  settled.forEach((result, i) => {
    const field = `body.party[${i}]`;
    if (result.status === 'rejected') {
      issues.push({ field, message: reasonOf(result.reason) });
    } else if (result.value.account === leader) {
      issues.push({ field, message: "is the caller's own: the caller is in its party already" });
    } else if (seen.has(result.value.account)) {
      issues.push({ field, message: `names account '${result.value.account}' a second time` });
    } else {
      seen.add(result.value.account);
      members.push(result.value);
    }
  });
  if (issues.length > 0) {
    throw new RequestInvalidError(
      `The party is not valid: ${issues.map((issue) => `${issue.field} ${issue.message}`).join('; ')}`,
      issues,
    );
  }
  return members;
}

async function memberOf(entry: string, leader: string, verifiers: PartyVerifiers): Promise<ProvenMember> {
  let audience: unknown;
  try {
    // Read unverified only to pick the verifier; each verifier then checks everything itself.
    audience = decodeJwt(entry).aud;
  } catch (error) {
    throw new AuthTokenInvalidError('The token is not valid.', { cause: error });
  }
  if (audience === partyAudience || (Array.isArray(audience) && audience.includes(partyAudience))) {
    const token = await verifiers.verifyPlatformToken(entry, partyAudience);
    if (token.leader !== leader) {
      throw new AuthTokenInvalidError('The party token was minted for another leader than the caller.');
    }
    return { account: token.account, scopes: [] };
  }
  const principal = await verifiers.verifyToken(entry);
  return { account: principal.account, scopes: principal.scopes };
}

function reasonOf(error: unknown): string {
  const message = error instanceof AuthTokenInvalidError ? error.message : 'The token is not valid.';
  // "The token has expired." → "is not valid: the token has expired"
  return `is not valid: ${message.charAt(0).toLowerCase()}${message.slice(1).replace(/\.$/, '')}`;
}
