import type { ControllerRequest } from '../../core/protocol/controller-messages';
import type { GameMethod } from '../../core/protocol/game-methods';
import { hashRegistrationKey } from '../../core/rooms/registration-keys';

export type AbandonNotice = Omit<Extract<ControllerRequest, { type: 'abandoned' }>, 'roomId' | 'sentAt'>;

/**
 * What the platform must hear when the controller stops waiting for a forwarded call the
 * platform may still apply (the game got -32004 or -32603), or undefined when nothing needs
 * undoing. Only `joined` does: applied late it would hold a slot for a player the game never
 * welcomed. `inited` may simply be retried (the platform answers a retry with the same
 * settings as it answered the first), and a late `left` frees what the game gave up.
 * The key leaves the sidecar only as its hash. The platform undoes only what `gameRequest`
 * (the game's request, `gameRequestId`) confirmed; `correlationId` deduplicates the notice.
 */
export function abandonNotice(
  method: GameMethod,
  params: unknown,
  correlationId: string,
  gameRequest: string,
): AbandonNotice | undefined {
  if (method !== 'joined') return undefined;
  const key = (params as { key?: unknown } | null)?.key;
  if (typeof key !== 'string') return undefined;
  return { type: 'abandoned', correlationId, method, keyHash: hashRegistrationKey(key), gameRequest };
}

/** Its own deduplication id, so a retried send stays one message and never collides with the request's. */
export const abandonDeduplicationId = (correlationId: string): string => `abandon-${correlationId}`;
