import { gameMethods } from '../../../../core/protocol/game-methods';
import type { PlayerLoad } from '../../heartbeat';
import { method, type MethodHandler, type Outcome } from '../dispatcher';

/** `left`: a player is gone; the platform frees the slot. */
export function leftMethod(forward: (params: unknown) => Promise<Outcome>, load: PlayerLoad): MethodHandler {
  return method(gameMethods.left.params, async (params) => {
    const outcome = await forward(params);
    if ('result' in outcome) load.left(params.key);
    return outcome;
  });
}
