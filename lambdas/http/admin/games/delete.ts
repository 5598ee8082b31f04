import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { gameVersionParamsSchema } from './params';

export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: gameVersionParamsSchema },
  async ({ params }) => {
    const p = platform();
    await p.gameConfigurations.delete(params.gameId, params.version);
    // Its standby servers end with their lifetime or the next sweep; none is started again.
    await p.pool.register(params.gameId, params.version, 0);
    return { status: 204 };
  },
);
