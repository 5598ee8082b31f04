import { gameServerTokenClaims } from '../core/auth/token-model';
import { childLogger } from '../core/infra/logger';
import { replaceOrFail, type DeathOutcome, type ServerDeath } from '../core/rooms/server-replacement';
import type { Platform } from './dependencies';

const log = childLogger('server-replacement');

/**
 * What every path that sees a dedicated room's server die calls (the controller-events
 * consumer, the sweeper, the local fleet): a `migrateHost` room is replaced, any other failed
 * (core/rooms/server-replacement.ts).
 */
export function serverReplacement(p: Platform): (roomId: string, death: ServerDeath) => Promise<DeathOutcome> {
  return (roomId, death) =>
    replaceOrFail(roomId, death, {
      rooms: p.rooms,
      // Read strongly: a replacement starts what the configuration says now.
      configuration: (gameId, version) => p.gameConfigurations.get(gameId, version),
      spawner: p.spawner,
      placement: p.placement,
      costs: p.costs,
      mintServerToken: (configuration, id) => p.signToken(gameServerTokenClaims(id, configuration.serverScopes)),
      now: p.now,
      log,
    });
}
