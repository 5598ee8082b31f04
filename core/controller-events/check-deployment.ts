import { deploymentOf } from '../gameservers/deployment';
import { GameConfigurationNotFoundError } from '../gameservers/errors';
import type { GameServerConfiguration } from '../gameservers/configuration';
import type { ControllerRequest } from '../protocol/controller-messages';
import { gameMethods, type GameMethodResult } from '../protocol/game-methods';
import { checkRpcParams } from '../protocol/invalid-params';
import { rpcErrorCodes } from '../protocol/jsonrpc';
import type { Room } from '../rooms/model';
import type { ControllerEventDependencies } from './ports';
import { fail, type Outcome } from './rules';

type RpcRequest = Extract<ControllerRequest, { type: 'rpc' }>;

/**
 * A game's `check_deployment`: is its build still the one its game version's configuration
 * starts? Two reads (the room, the configuration as stored now), no write.
 */
export async function checkDeployment(request: RpcRequest, deps: ControllerEventDependencies): Promise<Outcome> {
  const params = checkRpcParams(gameMethods.check_deployment.params, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  const room = await deps.rooms.find(request.roomId);
  if (!room) return fail(rpcErrorCodes.roomClosed, 'Unknown room.');
  let configuration: GameServerConfiguration | undefined;
  try {
    configuration = await deps.configurations.get(room.gameId, room.version);
  } catch (error) {
    if (!(error instanceof GameConfigurationNotFoundError)) throw error;
  }
  return { result: deploymentAnswer(room, configuration) };
}

/**
 * The answer, from the room and its version's configuration (undefined: deleted). Current when
 * the room was started from what the configuration starts now (`deploymentOf`). A room made by
 * a release that recorded no deployment is judged by time instead: current while the
 * configuration has not been written since the room was made, so its servers do not all drain
 * at once on an upgrade that changed nothing they run. The declared build is told without its
 * component map. Pure.
 */
function deploymentAnswer(
  room: Pick<Room, 'deployment' | 'createdAt'>,
  configuration: GameServerConfiguration | undefined,
): GameMethodResult<'check_deployment'> {
  if (!configuration) return { current: false };
  const declared = configuration.protocol;
  return {
    current:
      room.deployment === undefined
        ? Date.parse(configuration.updatedAt) <= Date.parse(room.createdAt)
        : room.deployment === deploymentOf(configuration),
    ...(declared
      ? { protocol: { hash: declared.hash, ...(declared.builtAt === undefined ? {} : { builtAt: declared.builtAt }) } }
      : {}),
  };
}
