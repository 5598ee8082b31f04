import type { RouteId } from '../lambdas/http/routes';
import type { HttpHandler } from '../lambdas/http/middleware';
import { handler as getRoom } from '../lambdas/http/rooms/get';
import { handler as issueDevToken } from '../lambdas/http/dev/tokens';

/**
 * The handler function behind each route id, for the local gateway. These are the very
 * exports the CDK stack bundles from each route's `entry`; a unit test checks they match.
 */
export const httpHandlers: Record<RouteId, HttpHandler> = {
  getRoom,
  issueDevToken,
};
