import { putTemplate } from '../../../../core/templates/put-template';
import { templateBodySchema, templateParamsSchema } from '../../../../core/templates/template-schema';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: templateParamsSchema, body: templateBodySchema },
  async ({ params, body }) => {
    const p = platform();
    const template = await putTemplate(params.template, body, {
      templates: p.templates,
      configurations: p.gameConfigurations,
      now: p.now(),
    });
    return { status: 200, body: { template } };
  },
);
