import { gameMethods } from '../../../../core/protocol/game-methods';
import { rpcErrorCodes, type RpcId } from '../../../../core/protocol/jsonrpc';
import { failure, method, type MethodHandler, type Outcome } from '../dispatcher';

/**
 * How often a game may save. Each save rewrites the room's whole item (up to 16 KiB of state in
 * it), so a game saving in a loop would cost the platform a write per call: one a second keeps
 * a replacement at most a second behind and the cost bounded whatever the game does.
 */
const minSaveIntervalMs = 1_000;

/**
 * `save_state`: the state a replacement server starts from, should this one die. The platform
 * keeps it with this server's epoch and refuses it once the server was replaced. A save sooner
 * than `minSaveIntervalMs` after the last one forwarded gets -32003 and is not forwarded.
 */
export function saveStateMethod(
  forward: (params: unknown, id?: RpcId) => Promise<Outcome>,
  now: () => number = Date.now,
): MethodHandler {
  let lastForwardedAt = Number.NEGATIVE_INFINITY;
  return method(gameMethods.save_state.params, (params, id) => {
    const at = now();
    if (at - lastForwardedAt < minSaveIntervalMs) {
      return Promise.resolve(failure(rpcErrorCodes.notAllowed, 'Too many saves: at most one per second.'));
    }
    lastForwardedAt = at;
    return forward(params, id);
  });
}
