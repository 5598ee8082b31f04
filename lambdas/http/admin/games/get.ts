import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { gameVersionParamsSchema } from './params';

export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: gameVersionParamsSchema },
  async ({ params }) => ({
    status: 200,
    body: { configuration: await platform().gameConfigurations.get(params.gameId, params.version) },
  }),
);
