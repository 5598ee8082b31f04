import {
  DeleteCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, isTransactionContention } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import type { Room } from '../rooms/model';
import { roomItem } from '../rooms/store';
import type { StoredMember } from '../sessions/document';

/** One pool: the standby servers of one configuration in one region. */
export interface PoolKey {
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
}

export interface StandbyServer {
  readonly roomId: string;
  /** `starting` until its game called `inited` (with `standby: true`), then `ready` to be taken. */
  readonly state: 'starting' | 'ready';
  readonly startedAt: string;
}

/** A configuration with a pool, as the refill sees it. */
export interface PooledConfiguration {
  readonly gameId: string;
  readonly version: string;
  readonly standby: number;
  /** Set when its game answered a standby start without accepting `assign`: never pooled again. */
  readonly unsupported?: { readonly at: string; readonly detail: string };
}

/**
 * The warm pool's bookkeeping on the single table: one item per standby server under its
 * pool's partition, and one registry item per pooled configuration. Taking a server is one
 * transaction that deletes its pool item (only if `ready`) and turns its standby room into
 * the creator's room (only if still standby and ready): two creators never get one server.
 */
export class PoolStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Records a configuration's pool size (0 removes it); a new PUT forgets an earlier "unsupported". */
  async register(gameId: string, version: string, standby: number): Promise<void> {
    const key = keys.pooledConfiguration(gameId, version);
    if (standby === 0) {
      await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: key }));
      return;
    }
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...key, type: 'pooled-configuration', gameId, version, standby },
      }),
    );
  }

  async registered(): Promise<PooledConfiguration[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.poolRegistryPartition },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => ({
      gameId: String(item.gameId),
      version: String(item.version),
      standby: Number(item.standby),
      ...(item.unsupported ? { unsupported: item.unsupported as PooledConfiguration['unsupported'] } : {}),
    }));
  }

  /** The game refused the pool's protocol: its configuration is never pooled again (until PUT anew). */
  async markUnsupported(gameId: string, version: string, detail: string, now: Date): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.pooledConfiguration(gameId, version),
          UpdateExpression: 'SET #unsupported = :why',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#unsupported': 'unsupported' },
          ExpressionAttributeValues: { ':why': { at: now.toISOString(), detail } },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async servers(pool: PoolKey): Promise<StandbyServer[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.pool(pool.gameId, pool.version, pool.region) },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => ({
      roomId: String(item.roomId),
      state: item.state === 'ready' ? 'ready' : 'starting',
      startedAt: String(item.startedAt),
    }));
  }

  async addStarting(pool: PoolKey, roomId: string, now: Date): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.standbyServer(pool.gameId, pool.version, pool.region, roomId),
          type: 'standby-server',
          roomId,
          state: 'starting',
          startedAt: now.toISOString(),
        },
      }),
    );
  }

  /** The server called `inited` accepting standby: it may be taken. */
  async markReady(pool: PoolKey, roomId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.standbyServer(pool.gameId, pool.version, pool.region, roomId),
          UpdateExpression: 'SET #state = :ready',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':ready': 'ready' },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  async remove(pool: PoolKey, roomId: string): Promise<void> {
    await this.db.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.standbyServer(pool.gameId, pool.version, pool.region, roomId),
      }),
    );
  }

  /**
   * Takes one ready standby server for `room` (its id is the server's): the pool item goes,
   * and the standby room becomes `room` with `members`, in one transaction. False when
   * another creator took it first or it is no longer a ready standby room.
   */
  async take(pool: PoolKey, room: Room, members: Readonly<Record<string, StoredMember>>): Promise<boolean> {
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.standbyServer(pool.gameId, pool.version, pool.region, room.roomId),
                ConditionExpression: '#state = :ready',
                ExpressionAttributeNames: { '#state': 'state' },
                ExpressionAttributeValues: { ':ready': 'ready' },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: roomItem(room, members),
                ConditionExpression: '#standby = :true AND #roomState = :readyRoom',
                ExpressionAttributeNames: { '#standby': 'standby', '#roomState': 'state' },
                ExpressionAttributeValues: { ':true': true, ':readyRoom': 'ready' },
              },
            },
          ],
        }),
      );
      return true;
    } catch (error) {
      // Taken or gone, or another creator's transaction on the same server: try another.
      if (isConditionFailure(error) || isTransactionContention(error)) return false;
      throw error;
    }
  }
}
