import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { banAccountParamsSchema } from './params';

/** The ban in force on an account; 404 when there is none or it has expired. */
export const handler = httpHandler({ auth: { scope: 'admin' }, params: banAccountParamsSchema }, async ({ params }) => {
  const { abuse, now } = platform();
  return { status: 200, body: { ban: await abuse.getBan(params.account, now()) } };
});
