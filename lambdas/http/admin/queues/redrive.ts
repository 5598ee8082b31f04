import * as z from 'zod';
import { redriveRequestSchema } from '../../../../core/infra/queue-admin';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

export const queueParamsSchema = z.strictObject({ queueId: z.string().min(1).max(64) });

/** Moves dead-lettered messages back to their source queue (404 for an unknown queue id). */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: queueParamsSchema, body: redriveRequestSchema },
  async ({ params, body }) => ({
    status: 200,
    body: await platform().queueAdmin.redrive(params.queueId, body.max),
  }),
);
