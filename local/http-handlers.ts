import type { RouteId } from '../lambdas/http/routes';
import type { HttpHandler } from '../lambdas/http/middleware';
import { handler as createRoom } from '../lambdas/http/rooms/create';
import { handler as getRoom } from '../lambdas/http/rooms/get';
import { handler as putGameConfiguration } from '../lambdas/http/admin/games/put';
import { handler as getGameConfiguration } from '../lambdas/http/admin/games/get';
import { handler as deleteGameConfiguration } from '../lambdas/http/admin/games/delete';
import { handler as issueDevToken } from '../lambdas/http/dev/tokens';

/**
 * The handler function behind each route id, for the local gateway. These are the very
 * exports the CDK stack bundles from each route's `entry`; a unit test checks they match.
 */
export const httpHandlers: Record<RouteId, HttpHandler> = {
  createRoom,
  getRoom,
  putGameConfiguration,
  getGameConfiguration,
  deleteGameConfiguration,
  issueDevToken,
};
