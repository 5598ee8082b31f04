import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { regionParamsSchema } from './params';

/** Removes a region without hosts (409 CONFLICT while it has some). */
export const handler = httpHandler({ auth: { scope: 'admin' }, params: regionParamsSchema }, async ({ params }) => {
  await platform().fleet.deleteRegion(params.region);
  return { status: 204 };
});
