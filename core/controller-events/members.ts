import {
  gameServerAccount,
  gameServerAudience,
  grantableScopes,
  joinedTokenClaims,
  joinedTokenScopes,
} from '../auth/token-model';
import { forwardedParams, type ControllerRequest } from '../protocol/controller-messages';
import { checkRpcParams } from '../protocol/invalid-params';
import { rpcErrorCodes, type RpcError } from '../protocol/jsonrpc';
import { isLive, type Room } from '../rooms/model';
import { isStaleReport } from '../rooms/replacement';
import { ProtocolMismatchError } from '../versions/errors';
import { tellServerOfMismatch } from '../versions/notice';
import { protocolDiff, protocolOfStored } from '../versions/protocol';
import type { ConfirmResult } from '../rooms/room-store';
import type { ControllerEventDependencies } from './ports';
import { fail, ok, type Outcome } from './rules';

type RpcRequest = Extract<ControllerRequest, { type: 'rpc' }>;

/**
 * The game request a `joined`, `left` or `abandoned` is about: what a used key is answered
 * again for (`confirm`). A sidecar of the previous release names none; its forward's
 * correlation id stands in, so only an SQS redelivery of that very message repeats, and any
 * other request with a used key is still rejected.
 */
export function gameRequestOf(request: {
  readonly correlationId: string;
  readonly gameRequest?: string | undefined;
}): string {
  return request.gameRequest ?? request.correlationId;
}

/**
 * `joined` and `left` name the player by the SHA-256 of the key the game was handed
 * (`keyHash`): the platform matches the hash it stored at the join and never sees the key.
 */
export async function joined(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const params = checkRpcParams(forwardedParams.joined, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  // Two round trips: one consistent read of the document (room, members, keys), one conditional write.
  const read = await deps.rooms.read(request.roomId);
  const room = read?.room;
  if (!read || !room || !isLive(room.state)) return fail(rpcErrorCodes.roomClosed, 'The room is not open.');
  if (isStaleReport(room, request.epoch)) {
    return fail(rpcErrorCodes.roomClosed, 'This game server was replaced; the room is no longer its own.');
  }
  const extension = await extendedScopes(room, params.data, deps);
  if ('error' in extension) return extension;
  const outcome = await deps.rooms.confirm(read, params.data.keyHash, gameRequestOf(request), now);
  if (outcome.state === 'Rejected') {
    return fail(rpcErrorCodes.keyRejected, `Registration key rejected (${outcome.reason}).`);
  }
  if (outcome.state === 'Mismatch') return refuseBuild(room, outcome, deps);
  const { member } = outcome;
  // Never more than the room's configuration lets its server hold, never admin: the game
  // server (perhaps hostile) holds this token, even when an admin joins.
  const scopes = joinedTokenScopes(member.scopes, room.serverScopes ?? [], extension.scopes);
  const accessToken = await deps.signToken(
    joinedTokenClaims({
      account: member.account,
      roomId: request.roomId,
      scopes,
      // Signed with the confirmation time: a redelivered joined gets a byte-identical token.
      issuedAt: new Date(member.confirmedAt ?? now.toISOString()),
    }),
  );
  return { result: { access_token: accessToken, account: member.account, info: {}, scopes } };
}

/**
 * A player whose client is another build than the room's server: its key is rejected (the
 * game drops the player; the store already freed its slot, `RoomStore.confirm`), and the game
 * is told which build knocked (`protocol_mismatch`).
 * Only the set hashes are known here: the member keeps its client's hash, not its components.
 */
async function refuseBuild(
  room: Room,
  mismatch: Extract<ConfirmResult, { state: 'Mismatch' }>,
  deps: ControllerEventDependencies,
): Promise<Outcome> {
  const client = { hash: mismatch.client };
  const hashes = { clientHash: mismatch.client, serverHash: mismatch.server.h };
  const error = new ProtocolMismatchError(room.roomId, protocolDiff(client, protocolOfStored(mismatch.server)), hashes);
  await tellServerOfMismatch(room, { account: mismatch.account, client, error }, deps);
  return fail(
    rpcErrorCodes.keyRejected,
    `Registration key rejected (protocol mismatch: the player's client is build ${hashes.clientHash}, ` +
      `this server is build ${hashes.serverHash}; drop the player).`,
  );
}

export async function left(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const params = checkRpcParams(forwardedParams.left, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  const outcome = await deps.rooms.leave(request.roomId, params.data.keyHash, gameRequestOf(request), now);
  return outcome.state === 'Left' ? ok : fail(rpcErrorCodes.keyRejected, 'Registration key rejected.');
}

/**
 * `extend_token` + `extend_scopes`: the game server's own token must be valid (platform
 * issuer, game-server audience), belong to this room's server, and hold every scope it
 * grants, each within the room's `serverScopes`. Only the token returned here carries the
 * extra scopes; the player's own token is untouched. Checked before the key is used, so a
 * refused extension leaves the slot as it was.
 */
async function extendedScopes(
  room: Room,
  params: { extend_token?: string; extend_scopes?: string },
  deps: Pick<ControllerEventDependencies, 'verifyServerToken'>,
): Promise<{ scopes: string[] } | { error: RpcError }> {
  const refuse = (why: string) => fail(rpcErrorCodes.scopeRefused, `Token extension refused: ${why}`);
  if (params.extend_token === undefined && params.extend_scopes === undefined) return { scopes: [] };
  if (params.extend_token === undefined || params.extend_scopes === undefined) {
    return fail(rpcErrorCodes.invalidParams, 'extend_token and extend_scopes go together.');
  }
  const wanted = params.extend_scopes.split(/[\s,]+/).filter(Boolean);
  let server;
  try {
    server = await deps.verifyServerToken(params.extend_token, gameServerAudience);
  } catch {
    return refuse('extend_token is not a valid game server token.');
  }
  if (server.account !== gameServerAccount(room.roomId) || server.room !== room.roomId) {
    return refuse("extend_token is not this room's server token.");
  }
  const missing = wanted.filter((scope) => !server.scopes.includes(scope));
  if (missing.length > 0) return refuse(`the server token lacks ${missing.join(', ')}.`);
  const grantable = grantableScopes(room.serverScopes ?? []);
  const beyond = wanted.filter((scope) => !grantable.includes(scope));
  if (beyond.length > 0) return refuse(`the configuration's serverScopes do not allow ${beyond.join(', ')}.`);
  return { scopes: wanted };
}
