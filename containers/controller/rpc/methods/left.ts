import { gameMethods } from '../../../../core/protocol/game-methods';
import type { RpcId } from '../../../../core/protocol/jsonrpc';
import type { PlayerLoad } from '../../heartbeat';
import { method, type MethodHandler, type Outcome } from '../dispatcher';

/** `left`: a player is gone; the platform frees the slot. The game's retry repeats the id. */
export function leftMethod(
  forward: (params: unknown, id?: RpcId) => Promise<Outcome>,
  load: PlayerLoad,
): MethodHandler {
  return method(gameMethods.left.params, async (params, id) => {
    const outcome = await forward(params, id);
    if ('result' in outcome) load.left(params.key);
    return outcome;
  });
}
