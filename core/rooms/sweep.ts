import { ScanCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Spawner } from '../gameservers/spawner';
import type { FailureReason } from '../protocol/controller-messages';
import type { Room } from './model';
import type { MemberStore } from '../reservations/store';
import type { RoomStore } from './store';

export interface SweepPolicy {
  readonly heartbeatTimeoutS: number;
  /** Grace past the spawn deadline, for the sidecar to report it first. */
  readonly spawnGraceS: number;
}

/** Why a live room must be failed now, or undefined if it is fine. Pure. */
export function overdue(room: Room, now: Date, policy: SweepPolicy): FailureReason | undefined {
  const t = now.getTime();
  if (room.state === 'spawning' && t > Date.parse(room.spawnDeadline) + policy.spawnGraceS * 1000)
    return 'spawn-timeout';
  if (
    room.state === 'ready' &&
    room.lastHeartbeatAt &&
    t > Date.parse(room.lastHeartbeatAt) + policy.heartbeatTimeoutS * 1000
  ) {
    return 'heartbeat-lost';
  }
  return undefined;
}

export interface SweepDependencies {
  readonly members: Pick<MemberStore, 'reclaimExpired'>;
  readonly db: DynamoDBDocumentClient;
  readonly tableName: string;
  readonly rooms: RoomStore;
  readonly spawner: Spawner;
  readonly now: () => Date;
}

/**
 * Fails live rooms whose server stopped reporting (sidecar or task died) or never came up,
 * and stops their tasks; frees the slots of expired reservations in the others. Reads and writes judge time lazily anyway; this only makes the
 * cleanup prompt. One pass over live rooms: fine at the scale of one region's live rooms.
 */
export async function sweepRooms(
  deps: SweepDependencies,
  policy: SweepPolicy,
): Promise<{ failed: string[]; freedSlots: number }> {
  const failed: string[] = [];
  let freedSlots = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await deps.db.send(
      new ScanCommand({
        TableName: deps.tableName,
        FilterExpression: '#type = :room AND #state IN (:spawning, :ready)',
        ExpressionAttributeNames: { '#type': 'type', '#state': 'state' },
        ExpressionAttributeValues: { ':room': 'room', ':spawning': 'spawning', ':ready': 'ready' },
        ExclusiveStartKey: startKey,
      }),
    );
    for (const item of page.Items ?? []) {
      const room = item as unknown as Room;
      const now = deps.now();
      const reason = overdue(room, now, policy);
      if (!reason) {
        // Reads and joins already ignore expired reservations; this frees their slots for good.
        if (room.players > 0) freedSlots += await deps.members.reclaimExpired(room.roomId, now);
        continue;
      }
      const change = await deps.rooms.markFailed(room.roomId, reason, now);
      if (!change.applied) continue;
      failed.push(room.roomId);
      if (room.placement) await deps.spawner.stop(room.placement.taskId, reason);
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { failed, freedSlots };
}
