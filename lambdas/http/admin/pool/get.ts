import { warmPoolsView } from '../../../../core/pool/pool-overview';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';

/** Every warm pool: its configuration, and per region its target and standby servers. */
export const handler = httpHandler({ auth: { scope: 'admin' } }, async () => ({
  status: 200,
  body: await warmPoolsView(platform().pool),
}));
