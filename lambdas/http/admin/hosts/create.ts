import { hostBodySchema, hostView } from '../../../../core/placement/fleet-model';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** Adds a host to the approved list; a second host of the same id is 409 CONFLICT. */
export const handler = httpHandler({ auth: { scope: 'admin' }, body: hostBodySchema }, async ({ body }) => {
  const { fleet, now } = platform();
  const host = await fleet.addHost(body, now());
  return {
    status: 201,
    body: { host: hostView(host, now()) },
    headers: { location: `/v1/admin/hosts/${host.hostId}` },
  };
});
