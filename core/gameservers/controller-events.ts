import { isDeepStrictEqual } from 'node:util';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { z } from 'zod';
import {
  gameServerAccount,
  gameServerAudience,
  grantableScopes,
  joinedTokenClaims,
  joinedTokenScopes,
} from '../auth/token-model';
import type { PlatformTokenVerifier, TokenSigner } from '../auth/tokens';
import type { RoomMessages } from '../commands/message-store';
import { commandOutcome, messageDataSchema } from '../commands/model';
import type { Commands } from '../commands/store';
import { countSpawnFailure } from '../infra/metrics';
import {
  forwardedParams,
  type ControllerReply,
  type ControllerRequest,
  type SidecarCredentials,
} from '../protocol/controller-messages';
import { gameMethods } from '../protocol/game-methods';
import { checkRpcParams } from '../protocol/invalid-params';
import { rpcErrorCodes, type RpcError } from '../protocol/jsonrpc';
import type { SessionStore } from '../sessions/store';
import { isLive, type Room, type RoomSettings } from '../rooms/model';
import type { RoomStore } from '../rooms/room-store';
import type { ServerSlots } from './server-slot-store';
import { ServerAddressPendingError } from './errors';
import type { PoolStore } from '../pool/pool-store';
import { playerAddress, readinessOf, type ServerLocator } from './server-address';

export interface ControllerEventDependencies {
  readonly rooms: RoomStore;
  /** Members live in the room's session document (core/sessions/store.ts). */
  readonly members: Pick<SessionStore, 'read' | 'confirm' | 'abandon' | 'leave'>;
  readonly signToken: TokenSigner;
  /** Verifies a platform-minted token for one audience (a game server's own, for `extend_token`). */
  readonly verifyServerToken: PlatformTokenVerifier;
  readonly reply: (replyTo: string, reply: ControllerReply) => Promise<void>;
  /** Fresh AWS credentials scoped to one room's queues; absent where sidecars need none (local). */
  readonly sidecarCredentials?: (roomId: string) => Promise<SidecarCredentials>;
  /** The address players reach, for a room whose spawner did not know it (deployed: the task's public IP). */
  readonly locateServer: ServerLocator;
  readonly now: () => Date;
  /** Running-server caps: a server that exited gives its slot back at once (docs/cost-bounds.md). */
  readonly slots?: Pick<ServerSlots, 'release'>;
  /** The warm pool: a standby server's `inited` makes it ready to be taken, or its game unpoolable. */
  readonly pool?: Pick<PoolStore, 'markReady' | 'markUnsupported' | 'remove'>;
  /** Owners' commands: the game's answers are recorded on them (core/commands/relay.ts). */
  readonly commands: Pick<Commands, 'recordOutcome'>;
  /** Each room's log of game → owner messages. */
  readonly messages: Pick<RoomMessages, 'append'>;
  /** For what is dropped without an answer to anyone (a message the platform cannot store). */
  readonly log: Pick<Logger, 'warn'>;
}

type RpcRequest = Extract<ControllerRequest, { type: 'rpc' }>;
type Outcome = { readonly result: unknown } | { readonly error: RpcError };

const fail = (code: number, message: string): Outcome => ({ error: { code, message } });

/**
 * Applies one message from a controller sidecar. Safe to run more than once for the same
 * message: every state change is a conditional write that recognises its own request id.
 */
export async function handleControllerRequest(
  request: ControllerRequest,
  deps: ControllerEventDependencies,
): Promise<void> {
  const now = deps.now();
  switch (request.type) {
    case 'heartbeat':
      await deps.rooms.recordHeartbeat(request.roomId, now);
      return;
    case 'exited': {
      // A game that ends cleanly after serving is closed; any other end is a failure.
      const closed = request.reason === 'exited' ? await deps.rooms.markClosed(request.roomId, now) : undefined;
      if (!closed?.applied) {
        const failed = await deps.rooms.markFailed(request.roomId, request.reason, now);
        // The sidecar killed a server that missed its spawn deadline.
        if (failed.applied && request.reason === 'spawn-timeout') countSpawnFailure('spawn-timeout', now);
      }
      // The server is gone whatever the room's state: a redelivery finds nothing to release.
      await deps.slots?.release(request.roomId);
      return;
    }
    case 'abandoned':
      // No answer: the sidecar stopped waiting. The result only tells the logs what happened.
      await deps.members.abandon(request.roomId, request.keyHash, gameRequestOf(request));
      return;
    case 'rpc': {
      const outcome = await applyRpc(request, deps, now);
      await deps.reply(request.replyTo, { type: 'reply', correlationId: request.correlationId, ...outcome });
      return;
    }
    case 'commandResult':
      // Keyed by the room the MAC proves: another room's sidecar cannot answer this room's
      // command, and a repeated or late answer finds the record no longer `sent`.
      await deps.commands.recordOutcome(request.roomId, request.commandId, commandOutcome(request), now);
      return;
    case 'message': {
      // The sidecar checked the same, so only a sidecar out of step with the platform gets
      // here with data that cannot be stored exactly. Retrying cannot fix it: it is dropped,
      // but with a trace, or the owner's missing message would be a mystery.
      const data = messageDataSchema.safeParse(request.data);
      if (!data.success) {
        deps.log.warn('dropping a game message the platform cannot store', {
          roomId: request.roomId,
          messageId: request.messageId,
          reason: issueSummary(data.error.issues),
        });
        return;
      }
      await deps.messages.append(request.roomId, request.messageId, data.data, now);
      return;
    }
    case 'credentials': {
      // An ended room's sidecar gets nothing more: its credentials lapse within the hour.
      const room = await deps.rooms.find(request.roomId);
      const outcome: Outcome = !deps.sidecarCredentials
        ? fail(rpcErrorCodes.notAllowed, 'This platform issues no sidecar credentials.')
        : !room || !isLive(room.state)
          ? fail(rpcErrorCodes.roomClosed, 'The room is not open.')
          : { result: await deps.sidecarCredentials(request.roomId) };
      await deps.reply(request.replyTo, { type: 'reply', correlationId: request.correlationId, ...outcome });
      return;
    }
  }
}

async function applyRpc(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  switch (request.method) {
    case 'inited':
      return inited(request, deps, now);
    case 'joined':
      return joined(request, deps, now);
    case 'left':
      return left(request, deps, now);
  }
}

async function inited(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const params = checkRpcParams(gameMethods.inited.params, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  const found = await deps.rooms.find(request.roomId);
  if (!found) return fail(rpcErrorCodes.roomClosed, 'Unknown room.');
  if (found.standby && found.state === 'spawning' && params.data.standby !== true) {
    return refuseStandby(found, deps, now);
  }
  let address: string | undefined;
  if (found.state === 'spawning') {
    const readiness = readinessOf(found, playerAddress(found) ? undefined : await deps.locateServer(found), now);
    if (readiness.ready) address = readiness.address;
    else if (readiness.retry) {
      // Players could not reach the server yet: the room stays spawning. No answer (the sidecar
      // takes any answered error as a refusal and ends the game): the message is handed back
      // and redelivered, and on its last delivery the room fails like any poison message.
      throw new ServerAddressPendingError(request.roomId);
    }
  }
  // No address (not spawning, or past the deadline): the write below cannot apply, and the
  // answers after it say why.
  const change = await deps.rooms.markReady(request.roomId, {
    settings: params.data.settings,
    initedBy: request.correlationId,
    address: address ?? '',
    now,
  });
  if (change.applied || change.room?.initedBy === request.correlationId) {
    if (found.standby) await deps.pool?.markReady(poolKeyOf(found), found.roomId);
    return { result: { status: 'OK' } };
  }
  const room = change.room;
  if (!room) return fail(rpcErrorCodes.roomClosed, 'Unknown room.');
  if (room.state === 'ready') {
    // Only this room's own sidecar reaches here, and it forwards a second `inited` only when
    // it lost the first one's answer (-32004/-32603, the game may retry): a retry asking for
    // what the room already is gets the first answer, so a late first `inited` fails nobody.
    return isRetryOfInited(params.data.settings, room.settings)
      ? { result: { status: 'OK' } }
      : fail(rpcErrorCodes.notAllowed, 'The room is already initialised with other settings.');
  }
  if (room.state === 'spawning') {
    // Late: the spawn deadline passed before this inited arrived.
    const failed = await deps.rooms.markFailed(request.roomId, 'spawn-timeout', now);
    if (failed.applied) countSpawnFailure('spawn-timeout', now);
    return fail(rpcErrorCodes.roomClosed, 'The spawn deadline has passed; the game server must exit.');
  }
  return fail(rpcErrorCodes.roomClosed, `The room is ${room.state}.`);
}

function poolKeyOf(room: Room) {
  return { gameId: room.gameId, version: room.version, region: room.region };
}

/**
 * A server started for the warm pool whose game did not accept it (`inited` without
 * `standby: true`): the game does not know `assign`, so it could never be handed a room.
 * It is refused (the sidecar ends it) and its configuration is never pooled again.
 */
async function refuseStandby(room: Room, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const detail = 'its inited did not accept standby ({"standby": true}) when started with standby=1';
  await deps.pool?.markUnsupported(room.gameId, room.version, detail, now);
  await deps.pool?.remove(poolKeyOf(room), room.roomId);
  await deps.rooms.markFailed(room.roomId, 'inited-refused', now);
  return fail(
    rpcErrorCodes.notAllowed,
    'This server was started for the warm pool (standby=1) and its inited did not accept it ({"standby": true}); ' +
      'the game must exit. Its configuration will not be pooled again.',
  );
}

/**
 * The game request a `joined`, `left` or `abandoned` is about: what a used key is answered
 * again for (core/sessions/store.ts `confirm`). A sidecar of the previous release names none;
 * its forward's correlation id stands in, so only an SQS redelivery of that very message
 * repeats, and any other request with a used key is still rejected.
 */
function gameRequestOf(request: { readonly correlationId: string; readonly gameRequest?: string | undefined }): string {
  return request.gameRequest ?? request.correlationId;
}

/**
 * `joined` and `left` name the player by the SHA-256 of the key the game was handed
 * (`keyHash`): the platform matches the hash it stored at the join and never sees the key.
 */
async function joined(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const params = checkRpcParams(forwardedParams.joined, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  // Two round trips: one consistent read of the document (room, members, keys), one conditional write.
  const read = await deps.members.read(request.roomId);
  const room = read?.room;
  if (!read || !room || !isLive(room.state)) return fail(rpcErrorCodes.roomClosed, 'The room is not open.');
  const extension = await extendedScopes(room, params.data, deps);
  if ('error' in extension) return extension;
  const outcome = await deps.members.confirm(read, params.data.keyHash, gameRequestOf(request), now);
  if (outcome.state === 'Rejected') {
    return fail(rpcErrorCodes.keyRejected, `Registration key rejected (${outcome.reason}).`);
  }
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

async function left(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const params = checkRpcParams(forwardedParams.left, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  const outcome = await deps.members.leave(request.roomId, params.data.keyHash, gameRequestOf(request), now);
  return outcome.state === 'Left'
    ? { result: { status: 'OK' } }
    : fail(rpcErrorCodes.keyRejected, 'Registration key rejected.');
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
  deps: ControllerEventDependencies,
): Promise<{ scopes: string[] } | { error: RpcError }> {
  const refuse = (why: string) =>
    fail(rpcErrorCodes.scopeRefused, `Token extension refused: ${why}`) as { error: RpcError };
  if (params.extend_token === undefined && params.extend_scopes === undefined) return { scopes: [] };
  if (params.extend_token === undefined || params.extend_scopes === undefined) {
    return fail(rpcErrorCodes.invalidParams, 'extend_token and extend_scopes go together.') as { error: RpcError };
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

/** An `inited` that changes nothing about a ready room: no settings, or the ones it already has. */
function isRetryOfInited(settings: RoomSettings | undefined, current: RoomSettings): boolean {
  return settings === undefined || isDeepStrictEqual(settings, current);
}

/** Zod's issues as one line for a log: `path: message`, `(root)` for the value itself. */
function issueSummary(issues: readonly z.core.$ZodIssue[]): string {
  return issues.map((issue) => `${issue.path.map(String).join('.') || '(root)'}: ${issue.message}`).join('; ');
}
