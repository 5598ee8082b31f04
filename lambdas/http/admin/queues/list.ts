import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** The platform's queues and their dead-letter queues: counts and oldest-message ages. */
export const handler = httpHandler({ auth: { scope: 'admin' } }, async () => ({
  status: 200,
  body: { queues: await platform().queueAdmin.list() },
}));
