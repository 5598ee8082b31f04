import { hostView } from '../../../../core/placement/fleet-model';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { hostParamsSchema } from './params';

export const handler = httpHandler({ auth: { scope: 'admin' }, params: hostParamsSchema }, async ({ params }) => {
  const { fleet, now } = platform();
  return { status: 200, body: { host: hostView(await fleet.getHost(params.hostId), now()) } };
});
