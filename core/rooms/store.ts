import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, TransactWriteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { asDependencyUnavailable, isConditionFailure, retryOnContention } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import { memberItem, registrationKeyItem } from '../reservations/items';
import type { Member } from '../reservations/model';
import type { Placement, Room, RoomFailureReason, RoomSettings } from './model';
import { RoomAlreadyExistsError, RoomNotFoundError } from './errors';

/** Outcome of a conditional state change: the room as written, or as it stood in the way. */
export type TransitionResult =
  { readonly applied: true; readonly room: Room } | { readonly applied: false; readonly room?: Room };

/** Attempts at creating a room while transactions collide or DynamoDB throttles. */
const createAttempts = 5;

/** Room persistence. Storage failures leave this module only as room errors or results. */
export class RoomStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async create(room: Room): Promise<void> {
    await this.createWithMember(room);
  }

  /**
   * Writes a new room together with its creator's reservation and registration key, all or
   * nothing: a room is never visible with a slot count its members do not back. Only a
   * failed condition means the room exists; a transaction cancelled by conflicts or
   * throttling is tried again and then answers `UNAVAILABLE`.
   */
  async createWithMember(room: Room, member?: Member): Promise<void> {
    const puts: Record<string, unknown>[] = [
      { ...keys.room(room.roomId), type: 'room', ...room, ...keys.roomIndexes(room) },
    ];
    if (member) puts.push(memberItem(member), registrationKeyItem(member));
    const write = new TransactWriteCommand({
      TransactItems: puts.map((Item) => ({
        Put: { TableName: this.tableName, Item, ConditionExpression: 'attribute_not_exists(pk)' },
      })),
    });
    try {
      // Only cancelled (unapplied) transactions are retried here, so a retry cannot find its own room.
      await retryOnContention(() => this.db.send(write), { maxAttempts: createAttempts, sleep: this.sleep });
    } catch (error) {
      if (isConditionFailure(error)) throw new RoomAlreadyExistsError(room.roomId);
      throw asDependencyUnavailable(error) ?? error;
    }
  }

  /** Strongly consistent: a room that was just created or joined reads back as written. */
  async get(roomId: string): Promise<Room> {
    const room = await this.find(roomId);
    if (!room) throw new RoomNotFoundError(roomId);
    return room;
  }

  async find(roomId: string): Promise<Room | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.room(roomId), ConsistentRead: true }),
    );
    return Item ? roomFromItem(Item) : undefined;
  }

  /** Where the server runs. Any state: a fast server may call `inited` before the spawner returns. */
  async recordPlacement(roomId: string, placement: Placement, now: Date): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { placement, updatedAt: now.toISOString() },
      condition: 'attribute_exists(pk)',
    });
  }

  /**
   * spawning → ready, once. `inited` settings replace the room's. The request id is kept so
   * a redelivered `inited` can be told apart from a second one.
   */
  async markReady(
    roomId: string,
    change: { settings?: RoomSettings; initedBy: string; now: Date },
  ): Promise<TransitionResult> {
    return this.update(roomId, {
      set: {
        state: 'ready',
        initedBy: change.initedBy,
        lastHeartbeatAt: change.now.toISOString(),
        updatedAt: change.now.toISOString(),
        ...(change.settings ? { settings: change.settings } : {}),
      },
      // roomIsSpawning AND spawnDeadlineNotPassed
      condition: '#state = :spawning AND spawnDeadline > :now',
      values: { ':spawning': 'spawning', ':now': change.now.toISOString() },
    });
  }

  /** Any live room → failed. A failed room never becomes ready again. */
  async markFailed(roomId: string, reason: RoomFailureReason, now: Date): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { state: 'failed', failureReason: reason, updatedAt: now.toISOString() },
      unindex: true,
      condition: '#state IN (:spawning, :ready)',
      values: { ':spawning': 'spawning', ':ready': 'ready' },
    });
  }

  /** ready → closed: the game ended cleanly after serving its players. */
  async markClosed(roomId: string, now: Date): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { state: 'closed', updatedAt: now.toISOString() },
      unindex: true,
      condition: '#state = :ready',
      values: { ':ready': 'ready' },
    });
  }

  /** Heartbeats keep a live room from being swept; they never revive a dead one. */
  async recordHeartbeat(roomId: string, now: Date): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { lastHeartbeatAt: now.toISOString() },
      condition: '#state IN (:spawning, :ready)',
      values: { ':spawning': 'spawning', ':ready': 'ready' },
      bump: false,
    });
  }

  private async update(
    roomId: string,
    spec: {
      set: Record<string, unknown>;
      condition: string;
      values?: Record<string, unknown>;
      bump?: boolean;
      /** Dead rooms leave the indexes: no lookup ever offers them again. */
      unindex?: boolean;
    },
  ): Promise<TransitionResult> {
    const names: Record<string, string> = spec.condition.includes('#state') ? { '#state': 'state' } : {};
    const values: Record<string, unknown> = { ...spec.values };
    const assignments = Object.entries(spec.set).map(([name, value]) => {
      names[`#${name}`] = name;
      values[`:set_${name}`] = value;
      return `#${name} = :set_${name}`;
    });
    if (spec.bump !== false) {
      names['#changeNumber'] = 'changeNumber';
      values[':one'] = 1;
      assignments.push('#changeNumber = #changeNumber + :one');
    }
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          UpdateExpression: `SET ${assignments.join(', ')}${spec.unindex ? ' REMOVE gsi1pk, gsi1sk, gsi2pk, gsi2sk' : ''}`,
          ConditionExpression: `attribute_exists(pk) AND (${spec.condition})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { applied: true, room: roomFromItem(Attributes ?? {}) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return { applied: false, room: error.Item ? roomFromItem(unmarshall(error.Item)) : undefined };
      }
      throw error;
    }
  }
}

/** A room as stored, without the table's own attributes (keys, index keys, type, TTL). */
export function roomFromItem(item: Record<string, unknown>): Room {
  const {
    pk: _pk,
    sk: _sk,
    type: _type,
    gsi1pk: _g1,
    gsi1sk: _g2,
    gsi2pk: _g3,
    gsi2sk: _g4,
    ttl: _ttl,
    ...room
  } = item;
  return room as unknown as Room;
}
