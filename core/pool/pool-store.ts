import {
  DeleteCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import type { Room } from '../rooms/model';
import { roomOf } from '../rooms/store';
import { documentOf, type StoredMember } from '../sessions/document';
import type { SessionRead } from '../sessions/store';

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

export interface RegionalStandbyServer extends StandbyServer {
  readonly region: string;
}

/** What a create makes of the standby room it takes: everything that is the creator's. */
export interface HandOver {
  readonly owner: string;
  readonly settings: Room['settings'];
  readonly maxPlayers: number;
  /** The create's instant: the room's lifetime and the creator's reservation count from it. */
  readonly createdAt: string;
  readonly template: Room['template'];
  readonly constants: NonNullable<Room['constants']>;
  readonly properties: NonNullable<Room['properties']>;
  readonly members: Readonly<Record<string, StoredMember>>;
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
 * configuration's pool partition (sorted by region), and one registry item per pooled
 * configuration. Taking a server is one conditional write on its standby room.
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

  /** The standby servers of one region's pool. */
  async servers(pool: PoolKey): Promise<StandbyServer[]> {
    return (await this.query(pool.gameId, pool.version, pool.region)).map(({ region: _region, ...server }) => server);
  }

  /** The standby servers of every region's pool of a configuration, in one read. */
  async serversByRegion(gameId: string, version: string): Promise<RegionalStandbyServer[]> {
    return this.query(gameId, version);
  }

  private async query(gameId: string, version: string, region?: string): Promise<RegionalStandbyServer[]> {
    const { Items } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: region ? 'pk = :pk AND begins_with(sk, :region)' : 'pk = :pk',
        ExpressionAttributeValues: {
          ':pk': keys.pool(gameId, version),
          ...(region ? { ':region': keys.poolRegionPrefix(region) } : {}),
        },
        ConsistentRead: true,
      }),
    );
    return (Items ?? []).map((item) => ({
      roomId: String(item.roomId),
      region: String(item.region),
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
          region: pool.region,
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
   * Takes the standby server `roomId` of `pool`: one conditional UpdateItem turns its room
   * (only while it is still a ready standby room) into the creator's, listed, with `handOver`,
   * and returns it with its session document. Two creators never get one server: the second finds it no longer standby.
   * Undefined when another creator took it first or it ended. Its pool item is left for the
   * caller to `remove` beside the hand-over; until then a reader sees an item whose room is
   * no longer standby, which every reader skips.
   */
  async take(pool: PoolKey, roomId: string, handOver: HandOver): Promise<SessionRead | undefined> {
    const { members, ...fields } = handOver;
    const set: Record<string, unknown> = {
      ...fields,
      players: Object.keys(members).length,
      members,
      gone: {},
      updatedAt: handOver.createdAt,
      // The creator's reservation runs from the create, not from when the server became ready.
      readyAt: handOver.createdAt,
      ...keys.roomIndexes({ ...pool, roomId, createdAt: handOver.createdAt }),
    };
    const names: Record<string, string> = { '#standby': 'standby', '#state': 'state', '#changeNumber': 'changeNumber' };
    const values: Record<string, unknown> = { ':true': true, ':ready': 'ready', ':one': 1 };
    const assignments = Object.entries(set).map(([name, value]) => {
      names[`#${name}`] = name;
      values[`:${name}`] = value;
      return `#${name} = :${name}`;
    });
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          UpdateExpression: `SET ${assignments.join(', ')}, #changeNumber = #changeNumber + :one REMOVE #standby`,
          ConditionExpression: '#standby = :true AND #state = :ready',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      // The write's answer is the whole new session document: the create answers from it, no read.
      return Attributes ? { room: roomOf(Attributes), doc: documentOf(Attributes) } : undefined;
    } catch (error) {
      // Taken by another creator, or ended since it was pooled: try another.
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }
}
