import { RouteNotFoundError } from '../../../core/errors';
import { logLinesQuerySchema } from '../../../core/infra/log-lines';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/**
 * Local cloud only: the last log lines it printed, oldest first, optionally one room's. The
 * route is never deployed, and a process without the local cloud's tail has no such route.
 */
export const handler = httpHandler({ auth: { scope: 'admin' }, query: logLinesQuerySchema }, async ({ query }) => {
  const { logTail } = platform();
  if (!logTail) throw new RouteNotFoundError('GET', '/v1/dev/logs');
  return { status: 200, body: logTail.read(query) };
});
