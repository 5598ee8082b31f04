import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { catalogQuerySchema } from '../catalog-query';

/** `GET /v1/admin/templates`: every session template, in name order, through the catalog index. */
export const handler = httpHandler({ auth: { scope: 'admin' }, query: catalogQuerySchema }, async ({ query }) => {
  const page = await platform().templates.list(query.nextToken, query.limit);
  return { status: 200, body: { templates: page.items, ...(page.nextToken ? { nextToken: page.nextToken } : {}) } };
});
