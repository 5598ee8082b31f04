import type { ControllerRequest } from '../protocol/controller-messages';
import { gameMethods } from '../protocol/game-methods';
import { checkRpcParams } from '../protocol/invalid-params';
import { rpcErrorCodes } from '../protocol/jsonrpc';
import type { ControllerEventDependencies } from './ports';
import { fail, ok, type Outcome } from './rules';

type RpcRequest = Extract<ControllerRequest, { type: 'rpc' }>;

/**
 * A game's `update_settings`: the room's settings are replaced in one conditional write that
 * an ended room or a replaced server (an older epoch) cannot pass. Matchmaking reads them from
 * the room, so the next find-or-create judges the room by them. A redelivery writes the same
 * settings again.
 */
export async function updateSettings(
  request: RpcRequest,
  deps: ControllerEventDependencies,
  now: Date,
): Promise<Outcome> {
  const params = checkRpcParams(gameMethods.update_settings.params, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  const written = await deps.rooms.updateSettings(request.roomId, params.data.settings, {
    epoch: request.epoch ?? 1,
    now,
  });
  switch (written) {
    case 'updated':
      return ok;
    case 'replaced':
      return fail(rpcErrorCodes.roomClosed, 'This game server was replaced; the room is no longer its own.');
    case 'not-live':
      return fail(rpcErrorCodes.roomClosed, 'The room is not open; its settings are not changed.');
  }
}
