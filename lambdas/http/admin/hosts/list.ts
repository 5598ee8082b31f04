import { hostView } from '../../../../core/placement/fleet-model';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** Every host with its health and load as placement sees them now. */
export const handler = httpHandler({ auth: { scope: 'admin' } }, async () => {
  const { fleet, now } = platform();
  const { hosts } = await fleet.read();
  return {
    status: 200,
    body: { hosts: [...hosts].sort((a, b) => (a.hostId < b.hostId ? -1 : 1)).map((h) => hostView(h, now())) },
  };
});
