import { gameNotifications } from '../../../../core/protocol/game-methods';
import { rpcErrorCodes } from '../../../../core/protocol/jsonrpc';
import { failure, method, type MethodHandler } from '../dispatcher';
import { perSecondLimit } from '../rate';

export interface MessageDependencies {
  /** Sends the message to the platform; resolves whether SQS took it. */
  readonly forward: (data: Record<string, unknown>) => Promise<boolean>;
  /** False once the room is ending: nothing more is forwarded. */
  readonly open: () => boolean;
  readonly now: () => number;
  /** Messages forwarded per second at most; the owner reads 100 at most anyway. @default 20 */
  readonly perSecond?: number;
}

/**
 * `message` (usually a notification): `{ data }` for the room's owner, forwarded to the platform
 * without waiting for it. Params were checked storable and at most 4 KiB by the dispatcher. A
 * game sending faster than `perSecond` gets -32003 for the excess, so a loop in the game costs
 * the platform a bounded number of writes.
 */
export function messageMethod(deps: MessageDependencies): MethodHandler {
  const perSecond = deps.perSecond ?? 20;
  const take = perSecondLimit(perSecond);
  return method(gameNotifications.message.params, async (params) => {
    if (!deps.open()) return failure(rpcErrorCodes.roomClosed, 'The room is ending.');
    if (!take(deps.now())) {
      return failure(rpcErrorCodes.notAllowed, `Too many messages: at most ${perSecond} per second.`);
    }
    return (await deps.forward(params.data))
      ? { result: { status: 'OK' } }
      : failure(rpcErrorCodes.internalError, 'The platform could not be reached.');
  });
}
