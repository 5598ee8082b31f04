import { gameServerConfigurationBodySchema } from '../../../../core/gameservers/schema';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { gameVersionParamsSchema } from './params';

export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: gameVersionParamsSchema, body: gameServerConfigurationBodySchema },
  async ({ params, body }) => {
    const { gameConfigurations, now } = platform();
    const configuration = { ...body, ...params, updatedAt: now().toISOString() };
    await gameConfigurations.put(configuration);
    return { status: 200, body: { configuration } };
  },
);
