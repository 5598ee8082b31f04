import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import { banTtl, type Ban } from './bans';

/** Account bans, one per account, stored as placed: whether one is in force is the caller's judgement. */
export interface Bans {
  /** Places or replaces the account's ban. */
  put(ban: Ban): Promise<void>;
  /** The account's ban as stored, expired or not; a ban placed a moment ago is seen. */
  find(account: string): Promise<Ban | undefined>;
  /** Removes the account's ban, if any, and hands back what it held. */
  delete(account: string): Promise<Ban | undefined>;
}

/**
 * Account bans: one item per account. The guard reads it through the process cache, at most
 * once a second per account (core/abuse/guard.ts). Whether a ban is in force is judged by the
 * caller against its clock (`banInForce`), because an expired item can outlive its TTL by days.
 */
export class BanStore implements Bans {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(ban: Ban): Promise<void> {
    const ttl = banTtl(ban);
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: { ...keys.ban(ban.account), type: 'ban', ...ban, ...(ttl === undefined ? {} : { ttl }) },
      }),
    );
  }

  /** Strongly consistent: a ban placed a moment ago is seen by the very next read. */
  async find(account: string): Promise<Ban | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.ban(account), ConsistentRead: true }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  async delete(account: string): Promise<Ban | undefined> {
    const { Attributes } = await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.ban(account), ReturnValues: 'ALL_OLD' }),
    );
    return Attributes ? fromItem(Attributes) : undefined;
  }
}

function fromItem(item: Record<string, unknown>): Ban {
  const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...ban } = item;
  return ban as Ban;
}
