import { isDeepStrictEqual } from 'node:util';
import { knownHost, playerAddress } from '../gameservers/server-address';
import type { FailureReason } from '../protocol/controller-messages';
import { rpcErrorCodes, type RpcError } from '../protocol/jsonrpc';
import type { Room, RoomSettings } from '../rooms/model';
import type { TransitionResult } from '../rooms/room-store';

/**
 * The pure rules of what a game's sidecar reports: each takes the room as read or as a write
 * left it, and `now` where time decides; the use cases (core/controller-events/handle.ts)
 * do the reads and writes through the room's store.
 */

/** The answer a forwarded call gets: the game's result, or a JSON-RPC error. */
export type Outcome = { readonly result: unknown } | { readonly error: RpcError };

export const ok: Outcome = { result: { status: 'OK' } };

export const fail = (code: number, message: string): { readonly error: RpcError } => ({ error: { code, message } });

/** A game that ends cleanly after serving is closed; any other end fails the room. */
export function endsCleanly(reason: FailureReason): boolean {
  return reason === 'exited';
}

/**
 * A server started for the warm pool (`standby=1`) whose `inited` did not accept it: the game
 * does not know `assign`, so it could never be handed a room.
 */
export function refusesStandby(room: Room, acceptsStandby: boolean | undefined): boolean {
  return room.standby === true && room.state === 'spawning' && acceptsStandby !== true;
}

/**
 * The rule of `inited`: a spawning room becomes ready to players only together with an
 * address they can reach. Without one, `inited` is answered "try again" while the spawn
 * deadline runs, and a room that never gets one times out like any other spawn.
 */
export function readinessOf(
  room: Pick<Room, 'address' | 'placement' | 'spawnDeadline'>,
  located: string | undefined,
  now: Date,
): { readonly ready: true; readonly address: string } | { readonly ready: false; readonly retry: boolean } {
  const address = playerAddress(room) ?? knownHost(located);
  if (address) return { ready: true, address };
  return { ready: false, retry: now.getTime() < Date.parse(room.spawnDeadline) };
}

/**
 * What an `inited` comes to once its write (`markReady`) is done: the room is ready by this
 * request (`ready`, answered OK), it must fail (`late`), or an answer that changes nothing.
 */
export type InitedVerdict =
  { readonly kind: 'ready' } | { readonly kind: 'late' } | { readonly kind: 'answer'; readonly outcome: Outcome };

/**
 * Judges an `inited` by the write it made. Applied, or applied before by this very request
 * (a redelivery): ready. Otherwise the room as it stood says why.
 */
export function initedVerdict(
  change: TransitionResult,
  request: { readonly correlationId: string; readonly settings: RoomSettings | undefined },
): InitedVerdict {
  const answer = (outcome: Outcome): InitedVerdict => ({ kind: 'answer', outcome });
  if (change.applied || change.room?.initedBy === request.correlationId) return { kind: 'ready' };
  const room = change.room;
  if (!room) return answer(fail(rpcErrorCodes.roomClosed, 'Unknown room.'));
  if (room.state === 'ready') {
    // Only this room's own sidecar reaches here, and it forwards a second `inited` only when
    // it lost the first one's answer (-32004/-32603, the game may retry): a retry asking for
    // what the room already is gets the first answer, so a late first `inited` fails nobody.
    return isRetryOfInited(request.settings, room.settings)
      ? answer(ok)
      : answer(fail(rpcErrorCodes.notAllowed, 'The room is already initialised with other settings.'));
  }
  // Still spawning, yet the write did not apply: the spawn deadline passed first.
  if (room.state === 'spawning') return { kind: 'late' };
  return answer(fail(rpcErrorCodes.roomClosed, `The room is ${room.state}.`));
}

/** An `inited` that changes nothing about a ready room: no settings, or the ones it already has. */
function isRetryOfInited(settings: RoomSettings | undefined, current: RoomSettings): boolean {
  return settings === undefined || isDeepStrictEqual(settings, current);
}
