import { gameMethods } from '../../../../core/protocol/game-methods';
import { rpcErrorCodes, type RpcId } from '../../../../core/protocol/jsonrpc';
import { failure, method, type MethodHandler, type Outcome } from '../dispatcher';
import { perSecondLimit } from '../rate';

type Forward = (params: unknown, id?: RpcId) => Promise<Outcome>;

/**
 * How many `update_settings` a game may send a second. Each one rewrites the room's item (its
 * 4 KiB of settings in it) and is a change every subscriber of the room is told of: a game
 * that changes its settings at game events (a new map, a new phase) sends a few a match,
 * while a game stuck in a loop would cost a write and a tap per call without a bound.
 */
export const updateSettingsPerSecond = 5;

/**
 * How many `check_deployment` a game may send a second. Each costs the platform two reads;
 * the answer changes only when an admin changes the configuration, so a game asks every few
 * minutes, and a loop costs at most this.
 */
export const checkDeploymentPerSecond = 5;

/**
 * `update_settings` (`{ settings }`, checked storable and at most 4 KiB by the dispatcher):
 * the room's settings change. Beyond `updateSettingsPerSecond` the game gets -32003 and
 * nothing is forwarded.
 */
export function updateSettingsMethod(forward: Forward, now: () => number = () => performance.now()): MethodHandler {
  const take = perSecondLimit(updateSettingsPerSecond);
  return method(gameMethods.update_settings.params, (params, id) =>
    take(now())
      ? forward(params, id)
      : Promise.resolve(
          failure(
            rpcErrorCodes.notAllowed,
            `Too many settings updates: at most ${updateSettingsPerSecond} per second.`,
          ),
        ),
  );
}

/**
 * `check_deployment` (params `{}` or none, as the Anthill runtimes send it): whether the
 * server's build is still its configuration's. Beyond `checkDeploymentPerSecond`: -32003.
 */
export function checkDeploymentMethod(forward: Forward, now: () => number = () => performance.now()): MethodHandler {
  const take = perSecondLimit(checkDeploymentPerSecond);
  return method(gameMethods.check_deployment.params, (params, id) =>
    take(now())
      ? forward(params, id)
      : Promise.resolve(
          failure(
            rpcErrorCodes.notAllowed,
            `Too many deployment checks: at most ${checkDeploymentPerSecond} per second.`,
          ),
        ),
  );
}
