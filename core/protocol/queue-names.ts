/**
 * The per-room queues a controller sidecar creates (docs/game-server-protocol.md), by name:
 *
 *   <prefix><roomId>          reply queue of the room's first server (epoch 1): platform → sidecar
 *   <prefix><roomId>-e<n>     reply queue of its replacement server of epoch n (n ≥ 2)
 *   <prefix><roomId>-assign   a standby server's assign queue: sidecar → the create that took it
 *
 * A replacement cannot reuse its predecessor's name: the old sidecar deletes its queue at exit,
 * and SQS refuses to create a queue under the name of one deleted in the last 60 seconds
 * (`QueueDeletedRecently`, DeleteQueue in the SQS API reference). A standby server always
 * serves epoch 1 (a replacement is never taken from the pool), so its assign queue has no epoch.
 * Room ids are UUIDs: none ends in `-e<n>` or `-assign`, so a name maps back to one room.
 *
 * The sidecar's session policy, the platform's lookups and the orphan sweep all name them here.
 */
export const assignQueueSuffix = '-assign';

/** Epoch 1 keeps the bare name, so a room's first server's queue is named as it always was. */
const epochSuffix = (epoch: number): string => (epoch > 1 ? `-e${epoch}` : '');

/** The reply queue of the room's server of `epoch` (core/rooms/replacement.ts `serverEpochOf`). */
export const replyQueueName = (prefix: string, roomId: string, epoch: number): string =>
  `${prefix}${roomId}${epochSuffix(epoch)}`;

export const assignQueueName = (prefix: string, roomId: string): string => `${prefix}${roomId}${assignQueueSuffix}`;

/** Whose a sidecar queue is: the room, and the epoch of the server that created it. */
export interface QueueOwner {
  readonly roomId: string;
  readonly epoch: number;
}

const epochPattern = /^(.+)-e([1-9][0-9]*)$/;

/** The room (and server epoch) a queue of `prefix` belongs to, or undefined for a name that is not one of ours. */
export function roomOfQueueName(prefix: string, name: string): QueueOwner | undefined {
  if (!name.startsWith(prefix)) return undefined;
  const rest = name.slice(prefix.length);
  if (rest.endsWith(assignQueueSuffix)) {
    const roomId = rest.slice(0, -assignQueueSuffix.length);
    return roomId.length > 0 ? { roomId, epoch: 1 } : undefined;
  }
  const epoch = epochPattern.exec(rest);
  const n = Number(epoch?.[2]);
  if (epoch?.[1] && n > 1 && Number.isSafeInteger(n)) return { roomId: epoch[1], epoch: n };
  return rest.length > 0 ? { roomId: rest, epoch: 1 } : undefined;
}
