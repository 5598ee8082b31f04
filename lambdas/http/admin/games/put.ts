import { gameServerConfigurationBodySchema } from '../../../../core/gameservers/schema';
import { configurationForFleet } from '../../../../core/gameservers/fleet-fit';
import { assertLocalBinaryStarts } from '../../../../core/gameservers/local-binary';
import { platform } from '../../../dependencies';
import { httpHandler } from '../../middleware';
import { gameVersionParamsSchema } from './params';

export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: gameVersionParamsSchema, body: gameServerConfigurationBodySchema },
  async ({ params, body }) => {
    const { gameConfigurations, now, config, prepareConfiguration, pool, protocolComponents } = platform();
    // The local fleet runs this machine's files: a binary it cannot start is refused now, not as
    // a crashed room later. Its sidecars get the platform's own PATH (local/child-environment.ts).
    if (config.spawner === 'local') assertLocalBinaryStarts(body, process.env.PATH);
    // Refused before anything is registered or stored; then ECS gets the configuration's task definition.
    const configuration = await prepareConfiguration(
      configurationForFleet(body, { ...params, updatedAt: now().toISOString() }, config.fleet),
    );
    // The declared build's components explain a later mismatch with its servers.
    if (configuration.protocol) await protocolComponents.remember(configuration.protocol);
    await gameConfigurations.put(configuration);
    // A new PUT also forgets that an earlier build of the game refused the pool.
    await pool.register(configuration.gameId, configuration.version, configuration.standby ?? 0);
    return { status: 200, body: { configuration } };
  },
);
