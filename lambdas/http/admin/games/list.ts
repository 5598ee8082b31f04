import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { catalogQuerySchema } from '../catalog-query';

/** `GET /v1/admin/games`: every game configuration, in game and version order, through the catalog index. */
export const handler = httpHandler({ auth: { scope: 'admin' }, query: catalogQuerySchema }, async ({ query }) => {
  const page = await platform().gameConfigurations.list(query.nextToken, query.limit);
  return {
    status: 200,
    body: { configurations: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) },
  };
});
