import type { ControllerRequest } from '../protocol/controller-messages';
import { gameMethods } from '../protocol/game-methods';
import { checkRpcParams } from '../protocol/invalid-params';
import { rpcErrorCodes } from '../protocol/jsonrpc';
import { serverSaveWrite } from '../rooms/replacement';
import type { ControllerEventDependencies } from './ports';
import { fail, type Outcome } from './rules';

type RpcRequest = Extract<ControllerRequest, { type: 'rpc' }>;

/**
 * A game server's `save_state`: the room keeps the state with the server's epoch, in one
 * conditional write that a replaced server (an older epoch) or an ended room cannot pass. A
 * redelivery writes the same state again: the answer differs only in `savedAt`.
 */
export async function saveState(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const params = checkRpcParams(gameMethods.save_state.params, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  const epoch = request.epoch ?? 1;
  const text = JSON.stringify(params.data.state);
  const written = await deps.rooms.writeSession(request.roomId, serverSaveWrite(epoch, text, now));
  if (written.applied) return { result: { epoch, savedAt: now.toISOString() } };
  const room = written.current?.room;
  if (room?.state === 'ready' && room.host?.epoch !== epoch) {
    return fail(rpcErrorCodes.roomClosed, 'This game server was replaced; its state is not kept.');
  }
  return fail(rpcErrorCodes.roomClosed, `The room is ${room?.state ?? 'gone'}; its state is not kept.`);
}
