import * as z from 'zod';

/** A page of a catalog listing (`GET /v1/admin/games`, `GET /v1/admin/templates`). */
export const catalogQuerySchema = z
  .strictObject({
    limit: z.coerce.number().int().min(1).max(100).default(50),
    nextToken: z.string().max(2048).optional(),
  })
  .meta({ id: 'CatalogQuery' });
