import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { hostParamsSchema } from './params';

/** Removes a host that runs none of the platform's servers (409 CONFLICT otherwise: drain it first). */
export const handler = httpHandler({ auth: { scope: 'admin' }, params: hostParamsSchema }, async ({ params }) => {
  await platform().fleet.deleteHost(params.hostId);
  return { status: 204 };
});
