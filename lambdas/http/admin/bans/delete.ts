import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { banAccountParamsSchema } from './params';

/** Lifts an account's ban; 404 when none was in force. */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: banAccountParamsSchema },
  async ({ params, principal }) => {
    const { abuse, now } = platform();
    await abuse.liftBan(params.account, principal.account, now());
    return { status: 204 };
  },
);
