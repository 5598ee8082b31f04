import { ServerAddressPendingError } from '../gameservers/errors';
import { playerAddress } from '../gameservers/server-address';
import { countSpawnFailure } from '../infra/metrics';
import type { ControllerRequest } from '../protocol/controller-messages';
import { gameMethods } from '../protocol/game-methods';
import { checkRpcParams } from '../protocol/invalid-params';
import { rpcErrorCodes } from '../protocol/jsonrpc';
import type { Room } from '../rooms/model';
import { storedProtocol, type Protocol } from '../versions/protocol';
import { restoreOf } from '../rooms/replacement';
import type { ControllerEventDependencies } from './ports';
import { fail, initedVerdict, ok, readinessOf, refusesStandby, type Outcome } from './rules';

type RpcRequest = Extract<ControllerRequest, { type: 'rpc' }>;

/** A game's `inited`: its room becomes ready with the address players reach, or it is told why not. */
export async function inited(request: RpcRequest, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const params = checkRpcParams(gameMethods.inited.params, request.params ?? {});
  if ('message' in params) return fail(rpcErrorCodes.invalidParams, params.message);
  const found = await deps.rooms.find(request.roomId);
  if (!found) return fail(rpcErrorCodes.roomClosed, 'Unknown room.');
  if (refusesStandby(found, params.data.standby)) return refuseStandby(found, deps, now);
  let address: string | undefined;
  if (found.state === 'spawning') {
    const readiness = readinessOf(found, playerAddress(found) ? undefined : await deps.locateServer(found), now);
    if (readiness.ready) address = readiness.address;
    else if (readiness.retry) {
      // Players could not reach the server yet: the room stays spawning. No answer (the sidecar
      // takes any answered error as a refusal and ends the game): the message is handed back
      // and redelivered, and on its last delivery the room fails like any poison message.
      throw new ServerAddressPendingError(request.roomId);
    }
  }
  // No address (not spawning, or past the deadline): the write below cannot apply, and the
  // verdict on it says why. The build's component map is kept beside it, not after it: the
  // spawn's answer waits on this write alone.
  const { protocol } = params.data;
  const [change] = await Promise.all([
    deps.rooms.markReady(request.roomId, {
      settings: params.data.settings,
      ...(protocol ? { protocol: storedProtocol(protocol) } : {}),
      initedBy: request.correlationId,
      address: address ?? '',
      now,
    }),
    protocol ? rememberComponents(protocol, request.roomId, deps) : undefined,
  ]);
  const verdict = initedVerdict(change, { correlationId: request.correlationId, settings: params.data.settings });
  if (verdict.kind === 'late') {
    const failed = await deps.rooms.markFailed(request.roomId, 'spawn-timeout', now);
    if (failed.applied) countSpawnFailure('spawn-timeout', now);
    return fail(rpcErrorCodes.roomClosed, 'The spawn deadline has passed; the game server must exit.');
  }
  if (verdict.kind === 'answer') return verdict.outcome;
  if (found.standby) await deps.pool?.markReady(poolKeyOf(found), found.roomId);
  return withRestore(found, deps);
}

/**
 * Keeps the build's component map for explaining later mismatches. Only explanations need it:
 * a failure is logged, and the server is made ready all the same.
 */
async function rememberComponents(protocol: Protocol, roomId: string, deps: ControllerEventDependencies) {
  try {
    await deps.protocolComponents.remember(protocol);
  } catch (error) {
    deps.log.warn("could not keep a build's component map", { roomId, hash: protocol.hash, error });
  }
}

/**
 * A replacement server (the room's epoch moved past 1) starts from what its predecessor saved:
 * the answer carries it as `restore` (docs/game-server-protocol.md "Replacement servers"). The
 * state is read apart from the room (it may be 16 KiB), and only for a replacement.
 */
async function withRestore(room: Room, deps: ControllerEventDependencies): Promise<Outcome> {
  if ((room.host?.epoch ?? 1) <= 1) return ok;
  const restore = restoreOf((await deps.rooms.read(room.roomId))?.saved);
  return restore ? { result: { status: 'OK', restore } } : ok;
}

function poolKeyOf(room: Room) {
  return { gameId: room.gameId, version: room.version, region: room.region };
}

/**
 * A standby server whose game did not accept standby is refused (the sidecar ends it) and
 * its configuration is never pooled again.
 */
async function refuseStandby(room: Room, deps: ControllerEventDependencies, now: Date): Promise<Outcome> {
  const detail = 'its inited did not accept standby ({"standby": true}) when started with standby=1';
  await deps.pool?.markUnsupported(room.gameId, room.version, detail, now);
  await deps.pool?.remove(poolKeyOf(room), room.roomId);
  await deps.rooms.markFailed(room.roomId, 'inited-refused', now);
  return fail(
    rpcErrorCodes.notAllowed,
    'This server was started for the warm pool (standby=1) and its inited did not accept it ({"standby": true}); ' +
      'the game must exit. Its configuration will not be pooled again.',
  );
}
