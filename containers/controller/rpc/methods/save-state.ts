import { gameMethods } from '../../../../core/protocol/game-methods';
import type { RpcId } from '../../../../core/protocol/jsonrpc';
import { method, type MethodHandler, type Outcome } from '../dispatcher';

/**
 * `save_state`: the state a replacement server starts from, should this one die. The platform
 * keeps it with this server's epoch and refuses it once the server was replaced.
 */
export function saveStateMethod(forward: (params: unknown, id?: RpcId) => Promise<Outcome>): MethodHandler {
  return method(gameMethods.save_state.params, (params, id) => forward(params, id));
}
