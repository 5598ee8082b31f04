import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { gameVersionParamsSchema } from './params';

export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: gameVersionParamsSchema },
  async ({ params }) => {
    const p = platform();
    await p.gameConfigurations.delete(params.gameId, params.version);
    // None is started again; the pool keeper retires its standby servers on its next pass.
    await p.pool.register(params.gameId, params.version, 0);
    return { status: 204 };
  },
);
