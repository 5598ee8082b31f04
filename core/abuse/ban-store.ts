import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import { banTtl, type Ban } from './bans';

/** Every ban as the directory lists it: account → when it ends (undefined: never). */
export interface BanDirectory {
  /** The directory's change counter when it was read (0: never written). */
  readonly epoch: number;
  readonly bans: ReadonlyMap<string, { readonly expiresAt?: string }>;
}

/** Account bans, one per account, stored as placed: whether one is in force is the caller's judgement. */
export interface Bans {
  /** Places or replaces the account's ban. */
  put(ban: Ban): Promise<void>;
  /** The account's ban as stored, expired or not; a ban placed a moment ago is seen. */
  find(account: string): Promise<Ban | undefined>;
  /** Removes the account's ban, if any, and hands back what it held. */
  delete(account: string): Promise<Ban | undefined>;
  /**
   * Every ban, strongly consistent, or `'unchanged'` when the directory's epoch is still
   * `knownEpoch` (one small read instead of the whole list).
   */
  directory(knownEpoch?: number): Promise<BanDirectory | 'unchanged'>;
}

/**
 * Account bans: one item per account (what the admin API reads) and, written in the same
 * transaction, an entry in the ban directory (one partition listing every ban) plus a bump of
 * the directory's epoch. The join path reads the directory once a second per process instead
 * of one item per join (core/abuse/ban-snapshot.ts). Whether a ban is in force is judged by
 * the caller against its clock (`banInForce`), because an expired item can outlive its TTL by days.
 */
export class BanStore implements Bans {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Places or replaces the account's ban, its directory entry and the epoch, atomically. */
  async put(ban: Ban): Promise<void> {
    const ttl = banTtl(ban);
    const expiry = ttl === undefined ? {} : { ttl };
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: this.tableName, Item: { ...keys.ban(ban.account), type: 'ban', ...ban, ...expiry } } },
          {
            Put: {
              TableName: this.tableName,
              Item: {
                ...keys.banDirectoryEntry(ban.account),
                type: 'banDirectoryEntry',
                account: ban.account,
                ...(ban.expiresAt === undefined ? {} : { expiresAt: ban.expiresAt }),
                ...expiry,
              },
            },
          },
          this.bumpEpoch(),
        ],
      }),
    );
  }

  /** Strongly consistent: a ban placed a moment ago blocks the very next join. */
  async find(account: string): Promise<Ban | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.ban(account), ConsistentRead: true }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  /**
   * Removes the account's ban item, if any, and hands back what it held; then its directory
   * entry, always (so a lift interrupted between the two is finished by the next one).
   */
  async delete(account: string): Promise<Ban | undefined> {
    const { Attributes } = await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.ban(account), ReturnValues: 'ALL_OLD' }),
    );
    await this.db.send(
      new TransactWriteCommand({
        TransactItems: [
          { Delete: { TableName: this.tableName, Key: keys.banDirectoryEntry(account) } },
          this.bumpEpoch(),
        ],
      }),
    );
    return Attributes ? fromItem(Attributes) : undefined;
  }

  async directory(knownEpoch?: number): Promise<BanDirectory | 'unchanged'> {
    const epoch = await this.epoch();
    if (knownEpoch !== undefined && epoch === knownEpoch) return 'unchanged';
    const bans = new Map<string, { expiresAt?: string }>();
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :entry)',
          ExpressionAttributeValues: { ':pk': keys.banDirectoryPartition, ':entry': keys.banDirectoryEntryPrefix },
          ProjectionExpression: 'account, expiresAt',
          ConsistentRead: true,
          ExclusiveStartKey,
        }),
      );
      for (const item of page.Items ?? []) {
        if (typeof item.account !== 'string') continue;
        bans.set(item.account, typeof item.expiresAt === 'string' ? { expiresAt: item.expiresAt } : {});
      }
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
    // Read before the list: a change landing in between bumps the epoch past this one, so the
    // next refresh lists again.
    return { epoch, bans };
  }

  private async epoch(): Promise<number> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.banDirectoryEpoch(), ConsistentRead: true }),
    );
    return typeof Item?.n === 'number' ? Item.n : 0;
  }

  private bumpEpoch() {
    return {
      Update: {
        TableName: this.tableName,
        Key: keys.banDirectoryEpoch(),
        UpdateExpression: 'ADD #n :one SET #type = :type',
        ExpressionAttributeNames: { '#n': 'n', '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':type': 'banDirectoryEpoch' },
      },
    };
  }
}

function fromItem(item: Record<string, unknown>): Ban {
  const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...ban } = item;
  return ban as Ban;
}
