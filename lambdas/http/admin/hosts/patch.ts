import { hostPatchSchema, hostView } from '../../../../core/placement/fleet-model';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { hostParamsSchema } from './params';

/** Drains a host (`draining: true`: no new servers, its rooms play out), or changes its capacity. */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: hostParamsSchema, body: hostPatchSchema },
  async ({ params, body }) => {
    const { fleet, now } = platform();
    return { status: 200, body: { host: hostView(await fleet.patchHost(params.hostId, body), now()) } };
  },
);
