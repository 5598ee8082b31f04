/**
 * The per-room queues a controller sidecar creates (docs/game-server-protocol.md), by name:
 *
 *   <prefix><roomId>          reply queue: platform → sidecar (answers, commands)
 *   <prefix><roomId>-assign   a standby server's assign queue: sidecar → the create that took it
 *
 * The sidecar's session policy, the platform's lookups and the orphan sweep all name them here.
 */
export const assignQueueSuffix = '-assign';

export const replyQueueName = (prefix: string, roomId: string): string => `${prefix}${roomId}`;

export const assignQueueName = (prefix: string, roomId: string): string => `${prefix}${roomId}${assignQueueSuffix}`;

/** The room a queue of `prefix` belongs to, or undefined for a name that is not one of ours. */
export function roomOfQueueName(prefix: string, name: string): string | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  const roomId = rest.endsWith(assignQueueSuffix) ? rest.slice(0, -assignQueueSuffix.length) : rest;
  return roomId.length > 0 ? roomId : undefined;
}
