import { templateParamsSchema } from '../../../../core/templates/template-schema';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

export const handler = httpHandler({ auth: { scope: 'admin' }, params: templateParamsSchema }, async ({ params }) => ({
  status: 200,
  body: { template: await platform().templates.get(params.template) },
}));
