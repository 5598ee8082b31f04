import type { RouteId } from '../lambdas/http/routes';
import type { HttpHandler } from '../lambdas/http/middleware';
import { handler as createRoom } from '../lambdas/http/rooms/create';
import { handler as getRoom } from '../lambdas/http/rooms/get';
import { handler as joinRoom } from '../lambdas/http/rooms/join';
import { handler as createPartyToken } from '../lambdas/http/me/party-tokens';
import { handler as leaveRoom } from '../lambdas/http/rooms/leave';
import { handler as listRoomMembers } from '../lambdas/http/rooms/members';
import { handler as patchRoom } from '../lambdas/http/rooms/patch';
import { handler as patchMember } from '../lambdas/http/rooms/patch-member';
import { handler as claimHost } from '../lambdas/http/rooms/host';
import { handler as removeMember } from '../lambdas/http/rooms/remove-member';
import { handler as reportHostUnreachable } from '../lambdas/http/rooms/host-unreachable';
import { handler as putRoomState } from '../lambdas/http/rooms/state';
import { handler as getRoomState } from '../lambdas/http/rooms/read-state';
import { handler as listRooms } from '../lambdas/http/rooms/list';
import { handler as matchmakingJoin } from '../lambdas/http/matchmaking/join';
import { handler as listAdminRooms } from '../lambdas/http/admin/rooms/list';
import { handler as closeRoom } from '../lambdas/http/admin/rooms/close';
import { handler as listGameConfigurations } from '../lambdas/http/admin/games/list';
import { handler as listTemplates } from '../lambdas/http/admin/templates/list';
import { handler as putGameConfiguration } from '../lambdas/http/admin/games/put';
import { handler as getGameConfiguration } from '../lambdas/http/admin/games/get';
import { handler as deleteGameConfiguration } from '../lambdas/http/admin/games/delete';
import { handler as putTemplate } from '../lambdas/http/admin/templates/put';
import { handler as getTemplate } from '../lambdas/http/admin/templates/get';
import { handler as deleteTemplate } from '../lambdas/http/admin/templates/delete';
import { handler as createBan } from '../lambdas/http/admin/bans/create';
import { handler as getBan } from '../lambdas/http/admin/bans/get';
import { handler as deleteBan } from '../lambdas/http/admin/bans/delete';
import { handler as listRegions } from '../lambdas/http/admin/regions/list';
import { handler as putRegion } from '../lambdas/http/admin/regions/put';
import { handler as deleteRegion } from '../lambdas/http/admin/regions/delete';
import { handler as addHost } from '../lambdas/http/admin/hosts/create';
import { handler as listHosts } from '../lambdas/http/admin/hosts/list';
import { handler as getHost } from '../lambdas/http/admin/hosts/get';
import { handler as patchHost } from '../lambdas/http/admin/hosts/patch';
import { handler as deleteHost } from '../lambdas/http/admin/hosts/delete';
import { handler as putHostHeartbeat } from '../lambdas/http/admin/hosts/heartbeat';
import { handler as localConsoleConfig } from '../lambdas/http/dev/console-config';
import { handler as issueDevToken } from '../lambdas/http/dev/tokens';
import { handler as tailLogs } from '../lambdas/http/dev/logs';
import { handler as getWarmPool } from '../lambdas/http/admin/pool/get';
import { handler as listQueues } from '../lambdas/http/admin/queues/list';
import { handler as redriveQueue } from '../lambdas/http/admin/queues/redrive';
import { handler as listHistory } from '../lambdas/http/admin/history/list';
import { handler as consoleFiles } from '../lambdas/http/console/serve';
import { handler as sendCommand } from '../lambdas/http/rooms/commands';
import { handler as getCommand } from '../lambdas/http/rooms/command';
import { handler as readMessages } from '../lambdas/http/rooms/messages';
import { handler as inviteToRoom } from '../lambdas/http/rooms/invite';
import { handler as listMyInvites } from '../lambdas/http/me/invites';

/**
 * The handler function behind each route id, for the local gateway. These are the very
 * exports the CDK stack bundles from each route's `entry`; a unit test checks they match.
 */
export const httpHandlers: Record<RouteId, HttpHandler> = {
  createRoom,
  getRoom,
  joinRoom,
  createPartyToken,
  leaveRoom,
  listRoomMembers,
  sendCommand,
  getCommand,
  readMessages,
  patchRoom,
  patchMember,
  claimHost,
  removeMember,
  inviteToRoom,
  listMyInvites,
  reportHostUnreachable,
  putRoomState,
  getRoomState,
  listRooms,
  matchmakingJoin,
  listAdminRooms,
  closeRoom,
  listGameConfigurations,
  listTemplates,
  putGameConfiguration,
  getGameConfiguration,
  deleteGameConfiguration,
  putTemplate,
  getTemplate,
  deleteTemplate,
  createBan,
  getBan,
  deleteBan,
  listRegions,
  putRegion,
  deleteRegion,
  addHost,
  listHosts,
  getHost,
  patchHost,
  deleteHost,
  putHostHeartbeat,
  issueDevToken,
  tailLogs,
  getWarmPool,
  listQueues,
  redriveQueue,
  listHistory,
  localConsoleConfig,
  consoleRoot: consoleFiles,
  consoleFile: consoleFiles,
};
