import { historyQuerySchema } from '../../../../core/rooms/history';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** Rooms' spawn/kill history, newest first: today's and yesterday's, or one room's. */
export const handler = httpHandler({ auth: { scope: 'admin' }, query: historyQuerySchema }, async ({ query }) => {
  const { history, now } = platform();
  return { status: 200, body: await history.list(query, now()) };
});
