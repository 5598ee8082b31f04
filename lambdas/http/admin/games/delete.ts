import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { gameVersionParamsSchema } from './params';

export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: gameVersionParamsSchema },
  async ({ params }) => {
    await platform().gameConfigurations.delete(params.gameId, params.version);
    return { status: 204 };
  },
);
