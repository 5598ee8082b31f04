import { gameMethods } from '../../../../core/protocol/game-methods';
import type { PlayerLoad } from '../../heartbeat';
import { method, type MethodHandler, type Outcome } from '../dispatcher';

/** `joined`: a player presented a registration key; the platform confirms or rejects it. */
export function joinedMethod(forward: (params: unknown) => Promise<Outcome>, load: PlayerLoad): MethodHandler {
  return method(gameMethods.joined.params, async (params) => {
    const outcome = await forward(params);
    if ('result' in outcome) load.joined(params.key);
    return outcome;
  });
}
