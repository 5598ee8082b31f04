import { DeleteCommand, GetCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { systemClock } from '../infra/clock';
import { isConditionFailure, retryOnContention } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import { banInForce, banTtl, gateBanOf, mirroredBanTtl, type Ban } from './bans';
import { logTtl, type RateLimitPolicy } from './rate-limit';
import { gateAttributes, gateItemType } from './rate-limit-store';

/**
 * Account bans, one per account, stored as placed: whether one is in force is the caller's
 * judgement. Each ban is mirrored onto the account's admission gates (the rate-limit logs of
 * `gates`), so the log's one conditional write refuses a banned account (core/abuse/rate-limit-store.ts).
 */
export interface Bans {
  /** Places or replaces the account's ban, on its ban item and on its gate of each policy's action, at once. */
  put(ban: Ban, gates: readonly RateLimitPolicy[], now: Date): Promise<void>;
  /** The account's ban as stored, expired or not; a ban placed a moment ago is seen. */
  find(account: string): Promise<Ban | undefined>;
  /** Removes the account's ban and its mirrors at once, if it has one, and hands back what it held. */
  delete(account: string, gates: readonly RateLimitPolicy[], now: Date): Promise<Ban | undefined>;
  /**
   * A ban as a scan read it, made whole again: placed anew with its mirrors (as `put` does) if
   * it is in force at `now`, deleted if it is over, in either case only while the stored ban is
   * still the one read (a ban lifted or replaced since is left as it is now).
   */
  restore(ban: Ban, gates: readonly RateLimitPolicy[], now: Date): Promise<BanRestored>;
}

/** What `restore` did: re-placed with its mirrors, deleted as over, or nothing (it changed since it was read). */
export type BanRestored = 'mirrored' | 'deleted' | 'changed';

/** A ban transaction collides with the admissions of the account it bans, often a busy one. */
const maxTransactionAttempts = 8;

/**
 * Account bans: the BAN item (what the admin routes read) and its mirror on each gate item,
 * written together in ONE TransactWriteItems, so no gate ever disagrees with the ban item.
 * Bans are placed by an admin's hand and rarely, so the transaction's doubled write cost is
 * paid there, and every admission decides the ban with the write it sends anyway. Whether a
 * ban is in force is judged against the caller's clock (`banInForce`), because an expired
 * item can outlive its TTL by days.
 */
export class BanStore implements Bans {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: (ms: number) => Promise<void> = systemClock.sleep,
  ) {}

  async put(ban: Ban, gates: readonly RateLimitPolicy[], now: Date): Promise<void> {
    await this.transact(this.placement(ban, gates, now));
  }

  async restore(ban: Ban, gates: readonly RateLimitPolicy[], now: Date): Promise<BanRestored> {
    // Only the ban that was read: one lifted or replaced since is the admin's, never undone here.
    const asRead = {
      ConditionExpression: '#createdAt = :createdAt',
      ExpressionAttributeNames: { '#createdAt': 'createdAt' },
      ExpressionAttributeValues: { ':createdAt': ban.createdAt },
    };
    const over = !banInForce(ban, now);
    try {
      if (over) {
        // An ended ban blocks nothing, mirrored or not: deleting its record is all that is left.
        await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.ban(ban.account), ...asRead }));
      } else {
        await this.transact(this.placement(ban, gates, now, asRead));
      }
    } catch (error) {
      if (isConditionFailure(error)) return 'changed';
      throw error;
    }
    return over ? 'deleted' : 'mirrored';
  }

  /** A ban's placement: its record (on `condition`, if given) and its mirror on each gate, for one transaction. */
  private placement(
    ban: Ban,
    gates: readonly RateLimitPolicy[],
    now: Date,
    condition: Partial<
      Pick<TransactPut, 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>
    > = {},
  ): TransactItem[] {
    const ttl = banTtl(ban);
    const banItem = {
      Put: {
        TableName: this.tableName,
        Item: { ...keys.ban(ban.account), type: 'ban', ...ban, ...(ttl === undefined ? {} : { ttl }) },
        ...condition,
      },
    };
    const mirrors = gates.map((policy) => {
      const gateTtl = mirroredBanTtl(ban, policy, now);
      return {
        Update: {
          TableName: this.tableName,
          // Creates the gate if absent: the account's first request then meets the ban.
          Key: keys.accountGate(ban.account, policy.action),
          // A permanent ban must outlive any TTL: the next admission after it sets the log's again.
          UpdateExpression:
            gateTtl === undefined
              ? 'SET #ban = :ban, #type = :type REMOVE #ttl'
              : 'SET #ban = :ban, #type = :type, #ttl = :ttl',
          ExpressionAttributeNames: {
            '#ban': gateAttributes.ban,
            '#type': gateAttributes.type,
            '#ttl': gateAttributes.ttl,
          },
          ExpressionAttributeValues: {
            ':ban': gateBanOf(ban),
            ':type': gateItemType,
            ...(gateTtl === undefined ? {} : { ':ttl': gateTtl }),
          },
        },
      };
    });
    return [banItem, ...mirrors];
  }

  /** Strongly consistent: a ban placed a moment ago is seen by the very next read. */
  async find(account: string): Promise<Ban | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.ban(account), ConsistentRead: true }),
    );
    return Item ? fromItem(Item) : undefined;
  }

  /**
   * Reads the ban, then removes it and its mirrors in one transaction. A ban placed between
   * the two is removed as well and the one read is handed back: the lift came after it.
   */
  async delete(account: string, gates: readonly RateLimitPolicy[], now: Date): Promise<Ban | undefined> {
    const ban = await this.find(account);
    if (!ban) return undefined;
    const banItem = { Delete: { TableName: this.tableName, Key: keys.ban(account) } };
    const mirrors = gates.map((policy) => ({
      Update: {
        TableName: this.tableName,
        Key: keys.accountGate(account, policy.action),
        // The log's own end again: its last admission was at or before `now`.
        UpdateExpression: 'SET #type = :type, #ttl = :ttl REMOVE #ban',
        ExpressionAttributeNames: {
          '#ban': gateAttributes.ban,
          '#type': gateAttributes.type,
          '#ttl': gateAttributes.ttl,
        },
        ExpressionAttributeValues: { ':type': gateItemType, ':ttl': logTtl(now, policy) },
      },
    }));
    await this.transact([banItem, ...mirrors]);
    return ban;
  }

  private async transact(items: TransactItem[]) {
    await retryOnContention(() => this.db.send(new TransactWriteCommand({ TransactItems: items })), {
      maxAttempts: maxTransactionAttempts,
      sleep: this.sleep,
    });
  }
}

type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];
type TransactPut = NonNullable<TransactItem['Put']>;

function fromItem(item: Record<string, unknown>): Ban {
  const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...ban } = item;
  return ban as Ban;
}
