import type { JWTPayload } from 'jose';

/** Who is calling, as established by a verified bearer token. */
export interface Principal {
  /** The token's `sub`. */
  readonly account: string;
  readonly scopes: readonly string[];
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

/**
 * Who holds which token, and what each one opens. Four kinds exist; none opens another's door.
 *
 * - Player and admin tokens: issued by the identity provider (`iss` = AUTH_ISSUER) for the
 *   API (`aud` = AUTH_AUDIENCE, or `client_id` when `aud` is absent, as Cognito access
 *   tokens carry it). Checked by API Gateway's JWT authorizer and again by every handler.
 * - A game server's `login_access_token`: minted at spawn (`iss` = PLATFORM_TOKEN_ISSUER,
 *   `aud` = roomkeeper:game-server, `room` claim). Checked only by the controller consumer,
 *   as `extend_token` of that room's `joined`.
 * - A joined player's token: minted at `joined` (`iss` = PLATFORM_TOKEN_ISSUER,
 *   `aud` = roomkeeper:room:<roomId>), handed to the game server for that one room.
 * - A party token: minted for a player at `POST /v1/me/party-tokens` (`iss` =
 *   PLATFORM_TOKEN_ISSUER, `aud` = roomkeeper:party, `ldr` claim), accepted only as an entry of
 *   that leader's join `party` (core/auth/party-proof.ts).
 *
 * Platform tokens are signed with the platform's own key (Secrets Manager deployed; a key
 * pair of its own in the local cloud), never in the identity provider's key set, and the
 * HTTP verifier refuses them by issuer and audience as well: a key set configured by
 * mistake still cannot turn a game server into a player or an admin.
 */

/** `iss` of every token the platform mints itself (override with PLATFORM_TOKEN_ISSUER). */
export const defaultPlatformIssuer = 'roomkeeper-platform';

/** Every platform audience starts with this; no identity provider audience may. */
const platformAudiencePrefix = 'roomkeeper:';

/** Audience of a game server's own token (`login_access_token`). */
export const gameServerAudience = `${platformAudiencePrefix}game-server`;

/**
 * Audience of a party token (`POST /v1/me/party-tokens`): its holder may seat the token's
 * subject with it in a join's `party`, only when the holder is the `ldr` claim's account.
 */
export const partyAudience = `${platformAudiencePrefix}party`;

/** Long enough to gather a party, short enough that a leaked one is soon worthless. */
export const partyTokenTtlS = 300;

/** A party token: `account` lets `leader` bring it into one join's party; no scopes, nothing else. */
export function partyTokenClaims(account: string, leader: string, issuedAt: Date): TokenClaims {
  return { account, scopes: [], ttlS: partyTokenTtlS, audience: partyAudience, issuedAt, extra: { ldr: leader } };
}

/** Audience of the token `joined` returns for a player: good for that one room only. */
export function roomAudience(roomId: string): string {
  return `${platformAudiencePrefix}room:${roomId}`;
}

/**
 * Account names that belong to the platform, never to a person: `@…` for the platform's own
 * owners (`@standby` owns every unassigned standby server) and `server:<roomId>`, a game
 * server's own account. Some identity providers allow such a `sub`, so the HTTP verifier
 * refuses every token whose `sub` starts with one of these (core/auth/tokens.ts).
 */
export const reservedAccountPrefixes = ['@', 'server:'] as const;

/** The platform's own owner accounts start with this (see `reservedAccountPrefixes`). */
export const platformOwnerPrefix = reservedAccountPrefixes[0];

/** True for an account name the platform reserves: no identity provider token may carry it. */
export function isReservedAccount(account: string): boolean {
  return reservedAccountPrefixes.some((prefix) => account.startsWith(prefix));
}

/** `sub` of a game server's own token. */
export function gameServerAccount(roomId: string): string {
  return `server:${roomId}`;
}

/**
 * Scopes no platform-minted token may ever carry: whoever controls a game server (a player
 * may have compromised it) must not reach the admin API through it, whatever a
 * configuration or a joining admin brings along.
 */
export const privilegedScopes: ReadonlySet<string> = new Set(['admin']);

/** A game server token lives as long as a game may reasonably run; the sidecar never logs it. */
const gameServerTokenTtlS = 24 * 3600;

/** Tokens handed to game servers for joined players: one room, short-lived. */
const joinedTokenTtlS = 3600;

/** A configuration's `serverScopes` as a token may hold them: privileged scopes dropped, no duplicates. */
export function grantableScopes(serverScopes: readonly string[]): string[] {
  return [...new Set(serverScopes.filter((scope) => !privilegedScopes.has(scope)))];
}

/** The game server's own token: the room's server account, its grantable scopes, the game-server audience. */
export function gameServerTokenClaims(roomId: string, serverScopes: readonly string[]): TokenClaims {
  return {
    account: gameServerAccount(roomId),
    scopes: grantableScopes(serverScopes),
    ttlS: gameServerTokenTtlS,
    audience: gameServerAudience,
    extra: { room: roomId },
  };
}

/**
 * The scopes of a `joined` token: what the player holds AND the room's configuration lets its
 * server hold, plus what the server granted with `extend_scopes` (which it must hold). So
 * it never exceeds `serverScopes` and never carries a privileged scope, even for an admin.
 */
export function joinedTokenScopes(
  memberScopes: readonly string[],
  serverScopes: readonly string[],
  extensionScopes: readonly string[] = [],
): string[] {
  const ceiling = new Set(grantableScopes(serverScopes));
  return [...new Set([...memberScopes, ...extensionScopes])].filter((scope) => ceiling.has(scope));
}

export function joinedTokenClaims(joined: {
  readonly account: string;
  readonly roomId: string;
  readonly scopes: readonly string[];
  /** The confirmation time: a redelivered `joined` then signs to the byte-identical token. */
  readonly issuedAt: Date;
}): TokenClaims {
  return {
    account: joined.account,
    scopes: joined.scopes,
    ttlS: joinedTokenTtlS,
    audience: roomAudience(joined.roomId),
    issuedAt: joined.issuedAt,
    extra: { room: joined.roomId },
  };
}

/** `aud` as a list, whether the token carries a string, an array or nothing. */
function audiencesOf(payload: JWTPayload): string[] {
  if (typeof payload.aud === 'string') return [payload.aud];
  if (Array.isArray(payload.aud)) return payload.aud.filter((a): a is string => typeof a === 'string');
  return [];
}

/** True for anything claiming to come from the platform itself: never a player or admin token. */
export function isPlatformMinted(payload: JWTPayload, platformIssuer: string): boolean {
  return payload.iss === platformIssuer || audiencesOf(payload).some((aud) => aud.startsWith(platformAudiencePrefix));
}

/**
 * The audience rule of API Gateway's JWT authorizer, so the handler and the authorizer agree:
 * `aud` (string or array) must name the audience; only when a token has no `aud` at all
 * (Cognito access tokens) is `client_id` read instead. A token with neither is refused.
 */
export function acceptsAudience(payload: JWTPayload, audience: string): boolean {
  if (payload.aud !== undefined) return audiencesOf(payload).includes(audience);
  return payload.client_id === audience;
}

/** Why an identity provider setting would let platform tokens through, or undefined if it is sound. */
export function identityProviderConflict(
  idp: { readonly issuer: string; readonly audience?: string },
  platformIssuer: string,
): string | undefined {
  if (idp.issuer === platformIssuer)
    return `the identity provider's issuer may not be the platform's (${platformIssuer})`;
  if (idp.audience?.startsWith(platformAudiencePrefix)) {
    return `the API audience may not start with "${platformAudiencePrefix}", which is reserved for platform tokens`;
  }
  return undefined;
}

/**
 * The most entries a `party` holds (16 members with its leader): the party's claim is one
 * conditional write, each member one more set of checks in its expression, and DynamoDB refuses
 * an expression over 4 KB or 300 operators (core/rooms/schema.ts `maxCriteria` cites the page). Here, not beside the
 * party's verification, so a body schema naming it does not pull the token verifier into every route;
 * test/unit/core/rooms/join-conditions.test.ts compiles the largest party's worst case.
 */
export const maxPartyEntries = 15;
