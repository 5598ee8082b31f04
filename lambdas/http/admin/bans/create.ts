import { banRequestSchema } from '../../../../core/abuse/bans';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** Places or replaces an account's ban; the account's next join or create is refused with 403 BANNED. */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, body: banRequestSchema },
  async ({ body, principal }) => {
    const { abuse, now } = platform();
    return { status: 201, body: { ban: await abuse.ban(body, principal.account, now()) } };
  },
);
