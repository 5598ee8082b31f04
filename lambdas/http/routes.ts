import type { FunctionNeed } from '../../core/infra/function-needs';

/**
 * The HTTP routes, described once. The CDK stack creates one API Gateway route and one
 * Lambda function per entry from `entry`; the local cloud's gateway serves the same table.
 * This file holds metadata only so the CDK app can read it without loading handler code.
 */
export interface RouteDefinition {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** API Gateway path syntax: `{name}` is a path parameter. */
  readonly path: string;
  /** Module (from the repository root) that exports `handler`. */
  readonly entry: string;
  /** `public` routes skip the JWT authorizer. */
  readonly auth: 'public' | 'jwt';
  /** A scope the authorizer demands as well (the handler checks it again). */
  readonly scope?: 'admin';
  /** Present in the local cloud only; never deployed. */
  readonly localOnly?: boolean;
  /** Handlers that wait for game servers need more than the default timeout. */
  readonly timeoutS?: number;
  /**
   * What the route's function needs besides its table (core/infra/function-needs.ts); the
   * stack grants exactly these. test/cdk/function-needs.test.ts fails when the handler's
   * code reaches a spawn or the signing key and its route does not declare it.
   */
  readonly needs?: readonly FunctionNeed[];
  /**
   * Files the deployed function carries beside its code: `console`, the operator console's
   * build (cdk/lib/constructs/console-bundle.ts builds it into the bundle).
   */
  readonly files?: 'console';
}

const gameVersionPath = '/v1/admin/games/{gameId}/versions/{version}';
const banPath = '/v1/admin/bans/{account}';
const templatePath = '/v1/admin/templates/{template}';
const regionPath = '/v1/admin/regions/{region}';
const hostPath = '/v1/admin/hosts/{hostId}';

export const routes = [
  {
    id: 'createRoom',
    method: 'POST',
    path: '/v1/rooms',
    entry: 'lambdas/http/rooms/create.ts',
    auth: 'jwt',
    timeoutS: 29,
    // sendCommands: a build its server refuses is told to that server (core/versions/notice.ts).
    needs: ['spawn', 'signTokens', 'takeStandby', 'sendCommands'],
  },
  { id: 'listRooms', method: 'GET', path: '/v1/rooms', entry: 'lambdas/http/rooms/list.ts', auth: 'jwt' },
  {
    id: 'getRoom',
    method: 'GET',
    path: '/v1/rooms/{roomId}',
    entry: 'lambdas/http/rooms/get.ts',
    auth: 'jwt',
    // Reading a session that stayed empty ends it and stops its server (core/rooms/patch.ts).
    needs: ['stopServers'],
  },
  {
    id: 'joinRoom',
    method: 'POST',
    path: '/v1/rooms/{roomId}/join',
    entry: 'lambdas/http/rooms/join.ts',
    auth: 'jwt',
    timeoutS: 29,
    // Idempotency-Key records are sealed under a key derived from the signing key; a build the
    // room's server refuses is told to that server (core/versions/notice.ts).
    needs: ['signTokens', 'sendCommands'],
  },
  {
    id: 'createPartyToken',
    method: 'POST',
    path: '/v1/me/party-tokens',
    entry: 'lambdas/http/me/party-tokens.ts',
    auth: 'jwt',
    // A party token is signed with the platform's key, as joined-player tokens are.
    needs: ['signTokens'],
  },
  {
    id: 'matchmakingJoin',
    method: 'POST',
    path: '/v1/matchmaking/join',
    entry: 'lambdas/http/matchmaking/join.ts',
    auth: 'jwt',
    timeoutS: 29,
    // Finds a room or creates one: it starts game servers and tells them of refused builds as createRoom does.
    needs: ['spawn', 'signTokens', 'sendCommands'],
  },
  {
    id: 'patchRoom',
    method: 'PATCH',
    path: '/v1/rooms/{roomId}',
    entry: 'lambdas/http/rooms/patch.ts',
    auth: 'jwt',
    needs: ['stopServers'],
  },
  {
    id: 'patchMember',
    method: 'PATCH',
    path: '/v1/rooms/{roomId}/members/me',
    entry: 'lambdas/http/rooms/patch-member.ts',
    auth: 'jwt',
    needs: ['stopServers'],
  },
  {
    id: 'leaveRoom',
    method: 'DELETE',
    path: '/v1/rooms/{roomId}/members/me',
    entry: 'lambdas/http/rooms/leave.ts',
    auth: 'jwt',
  },
  {
    id: 'listRoomMembers',
    method: 'GET',
    path: '/v1/rooms/{roomId}/members',
    entry: 'lambdas/http/rooms/members.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    // After leaveRoom: the local gateway matches in this order, so `…/members/me` stays a leave.
    id: 'removeMember',
    method: 'DELETE',
    path: '/v1/rooms/{roomId}/members/{account}',
    entry: 'lambdas/http/rooms/remove-member.ts',
    auth: 'jwt',
    // An arbiter's write to a session that stayed empty ends it and stops its server.
    needs: ['stopServers'],
  },
  {
    id: 'inviteToRoom',
    method: 'POST',
    path: '/v1/rooms/{roomId}/invites',
    entry: 'lambdas/http/rooms/invite.ts',
    auth: 'jwt',
    // Each invited account hears of it on its open live sockets (core/invites/notify.ts).
    needs: ['postToSockets'],
  },
  { id: 'listMyInvites', method: 'GET', path: '/v1/me/invites', entry: 'lambdas/http/me/invites.ts', auth: 'jwt' },
  {
    id: 'claimHost',
    method: 'POST',
    path: '/v1/rooms/{roomId}/host',
    entry: 'lambdas/http/rooms/host.ts',
    auth: 'jwt',
    // A claim on a session that stayed empty ends it and stops its server (core/rooms/session-end.ts).
    needs: ['stopServers'],
  },
  {
    id: 'reportHostUnreachable',
    method: 'POST',
    path: '/v1/rooms/{roomId}/host/unreachable',
    entry: 'lambdas/http/rooms/host-unreachable.ts',
    auth: 'jwt',
    needs: ['stopServers'],
  },
  {
    id: 'putRoomState',
    method: 'PUT',
    path: '/v1/rooms/{roomId}/state',
    entry: 'lambdas/http/rooms/state.ts',
    auth: 'jwt',
    needs: ['stopServers'],
  },
  {
    id: 'getRoomState',
    method: 'GET',
    path: '/v1/rooms/{roomId}/state',
    entry: 'lambdas/http/rooms/read-state.ts',
    auth: 'jwt',
    // Like `getRoom`: reading a session that stayed empty ends it and stops its server.
    needs: ['stopServers'],
  },
  {
    id: 'sendCommand',
    method: 'POST',
    path: '/v1/rooms/{roomId}/commands',
    entry: 'lambdas/http/rooms/commands.ts',
    auth: 'jwt',
    // Holds the owner up to 10 s for the game's answer.
    timeoutS: 15,
    // Seals the command with the room's channel key and puts it on the sidecar's reply queue.
    needs: ['sendCommands', 'signTokens'],
  },
  {
    id: 'getCommand',
    method: 'GET',
    path: '/v1/rooms/{roomId}/commands/{commandId}',
    entry: 'lambdas/http/rooms/command.ts',
    auth: 'jwt',
  },
  {
    id: 'readMessages',
    method: 'GET',
    path: '/v1/rooms/{roomId}/messages',
    entry: 'lambdas/http/rooms/messages.ts',
    auth: 'jwt',
    // A long poll of up to 20 s.
    timeoutS: 25,
  },
  {
    id: 'listAdminRooms',
    method: 'GET',
    path: '/v1/admin/rooms',
    entry: 'lambdas/http/admin/rooms/list.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'closeRoom',
    method: 'POST',
    path: '/v1/admin/rooms/{roomId}/close',
    entry: 'lambdas/http/admin/rooms/close.ts',
    auth: 'jwt',
    scope: 'admin',
    // Ends the room and stops its game server, as the sweeper ends one past a cost bound.
    needs: ['stopServers'],
  },
  {
    id: 'listGameConfigurations',
    method: 'GET',
    path: '/v1/admin/games',
    entry: 'lambdas/http/admin/games/list.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'putGameConfiguration',
    method: 'PUT',
    path: gameVersionPath,
    entry: 'lambdas/http/admin/games/put.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'getGameConfiguration',
    method: 'GET',
    path: gameVersionPath,
    entry: 'lambdas/http/admin/games/get.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'deleteGameConfiguration',
    method: 'DELETE',
    path: gameVersionPath,
    entry: 'lambdas/http/admin/games/delete.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'listTemplates',
    method: 'GET',
    path: '/v1/admin/templates',
    entry: 'lambdas/http/admin/templates/list.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'putTemplate',
    method: 'PUT',
    path: templatePath,
    entry: 'lambdas/http/admin/templates/put.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'getTemplate',
    method: 'GET',
    path: templatePath,
    entry: 'lambdas/http/admin/templates/get.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'deleteTemplate',
    method: 'DELETE',
    path: templatePath,
    entry: 'lambdas/http/admin/templates/delete.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'createBan',
    method: 'POST',
    path: '/v1/admin/bans',
    entry: 'lambdas/http/admin/bans/create.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  { id: 'getBan', method: 'GET', path: banPath, entry: 'lambdas/http/admin/bans/get.ts', auth: 'jwt', scope: 'admin' },
  {
    id: 'deleteBan',
    method: 'DELETE',
    path: banPath,
    entry: 'lambdas/http/admin/bans/delete.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'listRegions',
    method: 'GET',
    path: '/v1/admin/regions',
    entry: 'lambdas/http/admin/regions/list.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'putRegion',
    method: 'PUT',
    path: regionPath,
    entry: 'lambdas/http/admin/regions/put.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'deleteRegion',
    method: 'DELETE',
    path: regionPath,
    entry: 'lambdas/http/admin/regions/delete.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'addHost',
    method: 'POST',
    path: '/v1/admin/hosts',
    entry: 'lambdas/http/admin/hosts/create.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'listHosts',
    method: 'GET',
    path: '/v1/admin/hosts',
    entry: 'lambdas/http/admin/hosts/list.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'getHost',
    method: 'GET',
    path: hostPath,
    entry: 'lambdas/http/admin/hosts/get.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'patchHost',
    method: 'PATCH',
    path: hostPath,
    entry: 'lambdas/http/admin/hosts/patch.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'deleteHost',
    method: 'DELETE',
    path: hostPath,
    entry: 'lambdas/http/admin/hosts/delete.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'putHostHeartbeat',
    method: 'PUT',
    path: '/v1/admin/hosts/{hostId}/heartbeat',
    entry: 'lambdas/http/admin/hosts/heartbeat.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'getWarmPool',
    method: 'GET',
    path: '/v1/admin/pool',
    entry: 'lambdas/http/admin/pool/get.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    id: 'listQueues',
    method: 'GET',
    path: '/v1/admin/queues',
    entry: 'lambdas/http/admin/queues/list.ts',
    auth: 'jwt',
    scope: 'admin',
    needs: ['inspectQueues'],
  },
  {
    id: 'redriveQueue',
    method: 'POST',
    path: '/v1/admin/queues/{queueId}/redrive',
    entry: 'lambdas/http/admin/queues/redrive.ts',
    auth: 'jwt',
    scope: 'admin',
    // Up to 1,000 messages, ten per receive, send and delete.
    timeoutS: 29,
    needs: ['redriveQueues'],
  },
  {
    id: 'listHistory',
    method: 'GET',
    path: '/v1/admin/history',
    entry: 'lambdas/http/admin/history/list.ts',
    auth: 'jwt',
    scope: 'admin',
  },
  {
    // Before consoleFile: the local gateway matches in this order. The local console's sign-in.
    id: 'localConsoleConfig',
    method: 'GET',
    path: '/console/config.json',
    entry: 'lambdas/http/dev/console-config.ts',
    auth: 'public',
    localOnly: true,
  },
  {
    // The operator console (docs/console.md): `/console` sends the browser on to `/console/`.
    id: 'consoleRoot',
    method: 'GET',
    path: '/console',
    entry: 'lambdas/http/console/serve.ts',
    auth: 'public',
  },
  {
    id: 'consoleFile',
    method: 'GET',
    path: '/console/{path+}',
    entry: 'lambdas/http/console/serve.ts',
    auth: 'public',
    files: 'console',
  },
  {
    id: 'tailLogs',
    method: 'GET',
    path: '/v1/dev/logs',
    entry: 'lambdas/http/dev/logs.ts',
    auth: 'jwt',
    scope: 'admin',
    localOnly: true,
  },
  {
    id: 'issueDevToken',
    method: 'POST',
    path: '/v1/dev/tokens',
    entry: 'lambdas/http/dev/tokens.ts',
    auth: 'public',
    localOnly: true,
  },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]['id'];
