import { regionBodySchema } from '../../../../core/placement/fleet-model';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { regionParamsSchema } from './params';

/** Creates or replaces a region; `default: true` moves the default flag here. */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: regionParamsSchema, body: regionBodySchema },
  async ({ params, body }) => ({
    status: 200,
    body: { region: await platform().fleet.putRegion({ name: params.region, ...body }) },
  }),
);
