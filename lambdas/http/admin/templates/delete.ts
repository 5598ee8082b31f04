import { templateParamsSchema } from '../../../../core/templates/template-schema';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** Sessions already made from the template keep the constants they copied. */
export const handler = httpHandler({ auth: { scope: 'admin' }, params: templateParamsSchema }, async ({ params }) => {
  await platform().templates.delete(params.template);
  return { status: 204 };
});
