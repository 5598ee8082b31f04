import { hostHeartbeatSchema } from '../../../../core/placement/fleet-model';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { hostParamsSchema } from './params';

/** A host agent's report: CPU, memory and running servers, stamped with the platform's clock. */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: hostParamsSchema, body: hostHeartbeatSchema },
  async ({ params, body }) => {
    const { fleet, now } = platform();
    await fleet.heartbeat(params.hostId, body, now());
    return { status: 204 };
  },
);
