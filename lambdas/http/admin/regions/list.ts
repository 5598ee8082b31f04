import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** Every region and the ids of its hosts. */
export const handler = httpHandler({ auth: { scope: 'admin' } }, async () => {
  const { regions, hosts } = await platform().fleet.read();
  return {
    status: 200,
    body: {
      regions: [...regions]
        .sort((a, b) => (a.name < b.name ? -1 : 1))
        .map((region) => ({
          ...region,
          hosts: hosts.filter((h) => h.region === region.name).map((h) => h.hostId),
        })),
    },
  };
});
