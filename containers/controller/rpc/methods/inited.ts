import { gameMethods } from '../../../../core/protocol/game-methods';
import { rpcErrorCodes, type RpcError } from '../../../../core/protocol/jsonrpc';
import type { ForwardOutcome } from '../../bridge';
import { failure, method, type MethodHandler } from '../dispatcher';

export interface InitedDependencies {
  readonly forward: (params: unknown) => Promise<ForwardOutcome>;
  /** The platform made the room joinable: stop the spawn clock, start health checks. */
  readonly onAccepted: () => void;
  /** The platform refused: the game must exit (the controller makes sure it does). */
  readonly onRefused: (error: RpcError) => void;
}

/**
 * `inited`: the game is ready. Accepted once; a second `inited` (or one while the first
 * still waits for the platform) is refused here with -32003 and never reaches the platform.
 * Only the platform can refuse: when the controller could not get an answer (reply
 * timeout, SQS unreachable) the game may try again before the spawn timeout.
 */
export function initedMethod(deps: InitedDependencies): MethodHandler {
  let state: 'waiting' | 'forwarded' | 'accepted' = 'waiting';
  return method(gameMethods.inited.params, async (params) => {
    if (state !== 'waiting') {
      return failure(
        rpcErrorCodes.notAllowed,
        state === 'accepted' ? 'inited was already accepted.' : 'inited is already waiting for the platform.',
      );
    }
    state = 'forwarded';
    const outcome = await deps.forward(params);
    if ('result' in outcome) {
      state = 'accepted';
      deps.onAccepted();
    } else if (outcome.decidedBy === 'platform') {
      deps.onRefused(outcome.error);
    } else {
      state = 'waiting';
    }
    return outcome;
  });
}
