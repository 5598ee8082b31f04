import { gameMethods } from '../../../../core/protocol/game-methods';
import { rpcErrorCodes, type RpcId } from '../../../../core/protocol/jsonrpc';
import type { PlayerLoad } from '../../heartbeat';
import { failure, method, type MethodHandler, type Outcome } from '../dispatcher';

/**
 * `joined`: a player presented a registration key; the platform confirms or rejects it. Only
 * as a request with an id: its answer is the player's token, and the id is what makes the
 * game's retry the same request (a used key is answered again to that request alone).
 */
export function joinedMethod(
  forward: (params: unknown, id: RpcId) => Promise<Outcome>,
  load: PlayerLoad,
): MethodHandler {
  return method(gameMethods.joined.params, async (params, id) => {
    if (id === undefined) {
      return failure(
        rpcErrorCodes.invalidRequest,
        'Invalid request: joined must carry an id (its answer is the player token; a retry repeats the id).',
      );
    }
    const outcome = await forward(params, id);
    if ('result' in outcome) load.joined(params.key);
    return outcome;
  });
}
