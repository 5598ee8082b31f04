import {
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../infra/dependency-errors';
import { keys } from '../infra/keys';

/** A ready standby server as creates find it listed. */
export interface ListedServer {
  readonly region: string;
  readonly roomId: string;
}

/** One pool: the standby servers of one configuration in one region. */
export interface PoolKey {
  readonly gameId: string;
  readonly version: string;
  readonly region: string;
}

export interface StandbyServer {
  readonly roomId: string;
  /**
   * `starting` until its game called `inited` (with `standby: true`); then `ready`, to be
   * taken. A taken one stays listed until its create or the pool keeper removes it: its room,
   * no longer standby, is what says it was taken.
   */
  readonly state: 'starting' | 'ready';
  readonly startedAt: string;
}

/**
 * A configuration with a pool, as the refill sees it. `standby: 0` is a pool being emptied
 * (lowered to 0, or its configuration deleted): registered until its last server is gone.
 */
export interface PooledConfiguration {
  readonly gameId: string;
  readonly version: string;
  readonly standby: number;
  /** Counts the registration's writes: a deregistration holds only if none came since it was read. */
  readonly revision: number;
  /** Set when its game answered a standby start without accepting `assign`: never pooled again. */
  readonly unsupported?: { readonly at: string; readonly detail: string };
}

/**
 * The warm pool's bookkeeping on the single table: one item per pool (configuration and
 * region) under its configuration's partition, and one registry item per pooled configuration.
 *
 * A pool item holds every standby server of the pool (`servers`, by room id: its state and
 * start): what the pool keeper counts. Creates choose from the ready standby rooms themselves
 * (`readyServers`). Neither decides anything: a server changes hands with the room store's
 * `handOver` (core/rooms/rooms.ts), a conditional write on its room (only while that is still a ready standby room), so of any
 * number of creates trying one server exactly one gets it, and one that ended meanwhile goes
 * to none.
 */
export class PoolStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Records a configuration's pool size; a new PUT forgets an earlier "unsupported". 0 keeps
   * the registration (when there is one) so that the pool keeper still visits the pool and
   * retires its servers: it deregisters the configuration once they are gone (`deregister`).
   * Returns the registration's revision, or undefined when 0 found nothing registered.
   */
  async register(gameId: string, version: string, standby: number): Promise<number | undefined> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.pooledConfiguration(gameId, version),
          UpdateExpression:
            'SET #type = :type, #gameId = :gameId, #version = :version, #standby = :standby, ' +
            '#revision = if_not_exists(#revision, :zero) + :one REMOVE #unsupported',
          // Lowering to 0 registers nothing new: a configuration that never had a pool has none to empty.
          ...(standby === 0 ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
          ExpressionAttributeNames: {
            '#type': 'type',
            '#gameId': 'gameId',
            '#version': 'version',
            '#standby': 'standby',
            '#revision': 'revision',
            '#unsupported': 'unsupported',
          },
          ExpressionAttributeValues: {
            ':type': 'pooled-configuration',
            ':gameId': gameId,
            ':version': version,
            ':standby': standby,
            ':zero': 0,
            ':one': 1,
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.revision);
    } catch (error) {
      if (standby === 0 && isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /**
   * Whether the configuration still keeps a pool (registered with `standby` above 0), read
   * consistently: a standby server added to a pool that is being emptied is ended at once.
   */
  async keeps(gameId: string, version: string): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({
        TableName: this.tableName,
        Key: keys.pooledConfiguration(gameId, version),
        ConsistentRead: true,
      }),
    );
    return Item !== undefined && Number(Item.standby) > 0;
  }

  /**
   * Forgets a configuration whose pools are empty, in one transaction: its registration, only
   * while it is still at 0 and unchanged since `entry` was read (a PUT since wins), and the
   * pools' items, only while each is still empty (a server added since keeps them all). False
   * when either condition failed: the next pass looks again.
   */
  async deregister(entry: PooledConfiguration, pools: readonly PoolKey[]): Promise<boolean> {
    if (pools.length >= maxTransactionItems) return false;
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: this.tableName,
                Key: keys.pooledConfiguration(entry.gameId, entry.version),
                ConditionExpression: '#standby = :zero AND #revision = :revision',
                ExpressionAttributeNames: { '#standby': 'standby', '#revision': 'revision' },
                ExpressionAttributeValues: { ':zero': 0, ':revision': entry.revision },
              },
            },
            ...pools.map((pool) => ({
              Delete: {
                TableName: this.tableName,
                Key: poolItemKey(pool),
                ConditionExpression: 'attribute_not_exists(pk) OR size(#servers) = :zero',
                ExpressionAttributeNames: { '#servers': 'servers' },
                ExpressionAttributeValues: { ':zero': 0 },
              },
            })),
          ],
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  /** Every pool of a configuration (one per region it had standby servers in), with its servers. */
  async pools(gameId: string, version: string): Promise<{ key: PoolKey; servers: StandbyServer[] }[]> {
    const { pk } = keys.standbyPool(gameId, version, '');
    const found: { key: PoolKey; servers: StandbyServer[] }[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': pk },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.type !== poolItemType) continue;
        found.push({ key: { gameId, version, region: String(item.region) }, servers: serversOf(item) });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return found;
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
      revision: Number(item.revision ?? 0),
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

  /** The standby servers of one region's pool, oldest first. */
  async servers(pool: PoolKey): Promise<StandbyServer[]> {
    const item = await this.item(pool);
    return item ? serversOf(item) : [];
  }

  /** A server started for the pool: counted from now, not takeable until `markReady`. */
  async addStarting(pool: PoolKey, roomId: string, now: Date): Promise<void> {
    const entry = { state: 'starting', startedAt: now.toISOString() };
    // The item is made by the first server of its pool; whichever write loses retries the other.
    for (let attempt = 0; ; attempt++) {
      try {
        await this.db.send(
          new UpdateCommand({
            TableName: this.tableName,
            Key: poolItemKey(pool),
            UpdateExpression: 'SET #servers.#id = :entry',
            ConditionExpression: 'attribute_exists(#servers)',
            ExpressionAttributeNames: { '#servers': 'servers', '#id': roomId },
            ExpressionAttributeValues: { ':entry': entry },
          }),
        );
        return;
      } catch (error) {
        if (!isConditionFailure(error) || attempt > 0) throw error;
      }
      try {
        await this.db.send(
          new PutCommand({
            TableName: this.tableName,
            Item: {
              ...poolItemKey(pool),
              type: poolItemType,
              gameId: pool.gameId,
              version: pool.version,
              region: pool.region,
              servers: { [roomId]: entry },
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
        return;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
  }

  /** The server called `inited` accepting standby: takeable from now on (a retried `inited` changes nothing). */
  async markReady(pool: PoolKey, roomId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: poolItemKey(pool),
          UpdateExpression: 'SET #servers.#id.#state = :ready',
          ConditionExpression: '#servers.#id.#state = :starting',
          ExpressionAttributeNames: { '#servers': 'servers', '#id': roomId, '#state': 'state' },
          ExpressionAttributeValues: { ':ready': 'ready', ':starting': 'starting' },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }

  /**
   * The ready standby servers of a configuration, every region's: a hint for creates, which a
   * conditional take (`handOver`) checks. Read from the index the standby rooms are listed in
   * (gsi1, core/infra/keys.ts), which the take's own write leaves: a taken server is not
   * listed once the index has its write, and an ended one is not either. The index is
   * eventually consistent, which a hint may be.
   */
  async readyServers(gameId: string, version: string): Promise<ListedServer[]> {
    const listed: ListedServer[] = [];
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          IndexName: standbyIndex,
          KeyConditionExpression: 'gsi1pk = :standby',
          FilterExpression: '#state = :ready',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':standby': keys.standbyIndex(gameId, version), ':ready': 'ready' },
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const item of page.Items ?? []) {
        const sort = String(item.gsi1sk);
        listed.push({ region: sort.slice(0, sort.lastIndexOf('#')), roomId: String(item.roomId) });
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return listed;
  }

  /** Drops `roomId` from its pool, whatever its state; nothing when it is not listed. One write, no read. */
  async remove(pool: PoolKey, roomId: string): Promise<void> {
    await this.db
      .send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: poolItemKey(pool),
          UpdateExpression: 'REMOVE #servers.#id',
          // Never makes a pool item: one that is gone (deregistered) stays gone.
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#servers': 'servers', '#id': roomId },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  /** The pool's item, read consistently: its servers as they are now. */
  private async item(pool: PoolKey): Promise<Record<string, unknown> | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: poolItemKey(pool), ConsistentRead: true }),
    );
    return Item;
  }
}

const poolItemType = 'standby-pool';
/** The index standby rooms are listed in (core/infra/keys.ts). */
const standbyIndex = 'gsi1';
/** DynamoDB's limit on one transaction's items: the registration and every pool of it. */
const maxTransactionItems = 100;

function poolItemKey(pool: PoolKey) {
  return keys.standbyPool(pool.gameId, pool.version, pool.region);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function serversOf(item: Record<string, unknown>): StandbyServer[] {
  const servers = isRecord(item.servers) ? item.servers : {};
  return Object.entries(servers)
    .filter((entry): entry is [string, Record<string, unknown>] => isRecord(entry[1]))
    .map(
      ([roomId, entry]) =>
        ({
          roomId,
          state: entry.state === 'ready' ? 'ready' : 'starting',
          startedAt: String(entry.startedAt),
        }) satisfies StandbyServer,
    )
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt));
}
