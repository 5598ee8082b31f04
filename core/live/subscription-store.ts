import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type BatchGetCommandInput,
  type BatchGetCommandOutput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { jitteredBackoffMs, writeContentionBackoff } from '../infra/clock';
import { isConditionFailure, isTransactionContention } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import { connectionBounds, liveSocketsAfterPrune } from './bounds';

/** One socket's subscription to one room: what the fanout needs to send it taps. */
export interface Subscription {
  readonly connectionId: string;
  readonly roomId: string;
  readonly account: string;
  /** Subscribed with the admin scope: taps whether a member or not. */
  readonly admin: boolean;
  /** At most one tap per this many ms for this subscription (0: every change as it comes). */
  readonly minTapIntervalMs: number;
  /** The room's change number the subscriber had been told of when it subscribed. */
  readonly since: number;
}

/**
 * The fanout's view of the sockets (core/live/fanout.ts): who listens to a room, and how a
 * subscription or a whole connection ends. Owned by the socket side; the DynamoDB store and
 * the unit tests' fake (test/helpers/fakes/live-subscriptions.ts) implement it.
 */
export interface LiveSubscriptions {
  /** Every unexpired subscription of the room, in one strongly consistent read of its partition. */
  subscribersOf(roomId: string): Promise<Subscription[]>;
  /** Ends one subscription (nothing if there is none). */
  endSubscription(roomId: string, connectionId: string): Promise<void>;
  /** Everything of a gone connection: its subscriptions, its item, its place in its account's bound. What it had, if anything. */
  forgetConnection(connectionId: string): Promise<ForgottenConnection | undefined>;
  /**
   * The connection ids of the account's sockets that may still be open (its `LIVE` item, less
   * those past the longest life): where a frame for the account itself goes (an invite).
   */
  socketsOf(account: string): Promise<string[]>;
}

/** A socket the platform accepted: whose it is, and the rooms it subscribes to. */
export interface LiveConnection {
  readonly connectionId: string;
  readonly account: string;
  readonly admin: boolean;
  /** Epoch ms. */
  readonly connectedAt: number;
  readonly rooms: readonly string[];
}

export type ForgottenConnection = LiveConnection;

export type ConnectResult = 'connected' | 'too-many-connections';
export type SubscribeResult = 'subscribed' | 'too-many-subscriptions' | 'no-connection';

export interface SubscriptionOptions {
  readonly since: number;
  readonly minTapIntervalMs: number;
}

/** The socket handler's side of the store (lambdas/live/socket.ts). */
export interface LiveConnections extends LiveSubscriptions {
  /** Accepts a socket unless its account holds `connectionBounds.perAccount` live ones already. */
  connect(connection: Pick<LiveConnection, 'connectionId' | 'account' | 'admin'>, now: Date): Promise<ConnectResult>;
  connection(connectionId: string): Promise<LiveConnection | undefined>;
  /** Adds (or renews, with new options) the connection's subscription to the room, within its bound. */
  subscribe(
    connection: LiveConnection,
    roomId: string,
    options: SubscriptionOptions,
    now: Date,
  ): Promise<SubscribeResult>;
  /** Whether another socket of `account` than `connectionId` subscribes to the room. */
  otherSocketsWatch(account: string, roomId: string, connectionId: string): Promise<boolean>;
}

const subscriptionItemSchema = z.object({
  connectionId: z.string(),
  roomId: z.string(),
  account: z.string(),
  admin: z.boolean(),
  minTapIntervalMs: z.number().int().min(0),
  since: z.number().int().min(0),
  ttl: z.number(),
});

const connectionItemSchema = z.object({
  connectionId: z.string(),
  account: z.string(),
  admin: z.boolean(),
  connectedAt: z.number(),
  subs: z.record(z.string(), z.number()),
  ttl: z.number(),
});

const accountSocketsSchema = z.object({ conns: z.record(z.string(), z.number()) });

/**
 * Attempts at the account's socket bound: a refusal by its condition means another socket of
 * the account changed the map since it was read (read again), a conflict that another
 * transaction holds it (wait, then read again). Several tabs of one player connect at once.
 */
const connectAttempts = 8;

/** TTL (epoch s) of a connection's items: past its longest life, whatever its $disconnect did. */
const ttlOf = (connectedAt: number) => Math.ceil((connectedAt + connectionBounds.maxLifetimeMs) / 1000) + 60;

function connectionOf(item: z.infer<typeof connectionItemSchema>): LiveConnection {
  return {
    connectionId: item.connectionId,
    account: item.account,
    admin: item.admin,
    connectedAt: item.connectedAt,
    rooms: Object.keys(item.subs),
  };
}

/**
 * Sockets and subscriptions in the table (core/infra/keys.ts): a connection item, one
 * subscription item per room beside the room (one Query reads a room's subscribers), and per
 * account a map of its sockets that a conditional write keeps within the bound. Items carry a
 * TTL past the socket's longest life; reads ignore expired ones, since TTL deletion is late.
 */
export class DynamoLiveSubscriptions implements LiveConnections {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly now: () => Date,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async connect(
    connection: Pick<LiveConnection, 'connectionId' | 'account' | 'admin'>,
    now: Date,
  ): Promise<ConnectResult> {
    const at = now.getTime();
    const item = {
      ...keys.liveConnection(connection.connectionId),
      ...connection,
      connectedAt: at,
      subs: {},
      ttl: ttlOf(at),
    };
    for (let attempt = 0; attempt < connectAttempts; attempt++) {
      const { Item } = await this.db.send(
        new GetCommand({
          TableName: this.tableName,
          Key: keys.accountSockets(connection.account),
          ConsistentRead: true,
        }),
      );
      const conns = Item ? accountSocketsSchema.parse(Item).conns : undefined;
      const kept = liveSocketsAfterPrune(conns ?? {}, at);
      if (kept.live >= connectionBounds.perAccount) return 'too-many-connections';
      try {
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } },
              { ...this.claimSocket(connection.account, connection.connectionId, conns, kept.stale, at) },
            ],
          }),
        );
        return 'connected';
      } catch (error) {
        if (isTransactionContention(error)) await this.sleep(jitteredBackoffMs(attempt, writeContentionBackoff));
        else if (!isConditionFailure(error)) throw error;
      }
    }
    return 'too-many-connections';
  }

  /**
   * The account's socket map gains this one and loses its stale ones, IF it is as read: no
   * entry more (its size) and the stale ones still there, so the live count stays in bound.
   */
  private claimSocket(
    account: string,
    connectionId: string,
    conns: Record<string, number> | undefined,
    stale: readonly string[],
    at: number,
  ) {
    const Key = keys.accountSockets(account);
    if (!conns) {
      return {
        Put: {
          TableName: this.tableName,
          Item: { ...Key, conns: { [connectionId]: at }, ttl: ttlOf(at) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      };
    }
    const names: Record<string, string> = { '#conns': 'conns', '#new': connectionId, '#ttl': 'ttl' };
    stale.forEach((id, i) => (names[`#s${i}`] = id));
    const removes = stale.map((_, i) => `#conns.#s${i}`);
    return {
      Update: {
        TableName: this.tableName,
        Key,
        UpdateExpression: `SET #conns.#new = :at, #ttl = :ttl${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
        ConditionExpression: ['size(#conns) <= :size', ...stale.map((_, i) => `attribute_exists(#conns.#s${i})`)].join(
          ' AND ',
        ),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':at': at, ':ttl': ttlOf(at), ':size': Object.keys(conns).length },
      },
    };
  }

  async connection(connectionId: string): Promise<LiveConnection | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.liveConnection(connectionId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const item = connectionItemSchema.parse(Item);
    return item.ttl * 1000 > this.now().getTime() ? connectionOf(item) : undefined;
  }

  async subscribe(
    connection: LiveConnection,
    roomId: string,
    options: SubscriptionOptions,
    now: Date,
  ): Promise<SubscribeResult> {
    const subscription: Subscription = {
      connectionId: connection.connectionId,
      roomId,
      account: connection.account,
      admin: connection.admin,
      ...options,
    };
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: this.tableName,
                Key: keys.liveConnection(connection.connectionId),
                UpdateExpression: 'SET #subs.#room = :at',
                ConditionExpression: 'attribute_exists(pk) AND (attribute_exists(#subs.#room) OR size(#subs) < :max)',
                ExpressionAttributeNames: { '#subs': 'subs', '#room': roomId },
                ExpressionAttributeValues: {
                  ':at': now.getTime(),
                  ':max': connectionBounds.subscriptionsPerConnection,
                },
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: {
                  ...keys.roomSubscription(roomId, connection.connectionId),
                  ...subscription,
                  ttl: ttlOf(connection.connectedAt),
                },
              },
            },
          ],
        }),
      );
      return 'subscribed';
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return (await this.connection(connection.connectionId)) ? 'too-many-subscriptions' : 'no-connection';
    }
  }

  async subscribersOf(roomId: string): Promise<Subscription[]> {
    const found: Subscription[] = [];
    const nowS = this.now().getTime() / 1000;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :sub)',
          ExpressionAttributeValues: {
            ':pk': keys.room(roomId).pk,
            ':sub': keys.roomSubscriptionPrefix,
          },
          ConsistentRead: true,
          ...(start ? { ExclusiveStartKey: start } : {}),
        }),
      );
      for (const raw of page.Items ?? []) {
        const parsed = subscriptionItemSchema.safeParse(raw);
        if (!parsed.success || parsed.data.ttl <= nowS) continue;
        const { ttl: _ttl, ...subscription } = parsed.data;
        found.push(subscription);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return found;
  }

  async endSubscription(roomId: string, connectionId: string): Promise<void> {
    await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.roomSubscription(roomId, connectionId) }),
    );
    await this.removeEntry(keys.liveConnection(connectionId), 'subs', roomId);
  }

  async forgetConnection(connectionId: string): Promise<ForgottenConnection | undefined> {
    // Deleted first, answering what it held: a subscribe landing meanwhile is in that answer
    // (or refused, the connection being gone), so no subscription outlives its connection.
    const { Attributes } = await this.db.send(
      new DeleteCommand({
        TableName: this.tableName,
        Key: keys.liveConnection(connectionId),
        ReturnValues: 'ALL_OLD',
      }),
    );
    if (!Attributes) return undefined;
    const connection = connectionOf(connectionItemSchema.parse(Attributes));
    await Promise.all(
      connection.rooms.map((roomId) =>
        this.db.send(
          new DeleteCommand({ TableName: this.tableName, Key: keys.roomSubscription(roomId, connectionId) }),
        ),
      ),
    );
    await this.removeEntry(keys.accountSockets(connection.account), 'conns', connectionId);
    return connection;
  }

  async socketsOf(account: string): Promise<string[]> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.accountSockets(account), ConsistentRead: true }),
    );
    const conns = Item ? accountSocketsSchema.parse(Item).conns : {};
    const stale = new Set(liveSocketsAfterPrune(conns, this.now().getTime()).stale);
    return Object.keys(conns).filter((id) => !stale.has(id));
  }

  async otherSocketsWatch(account: string, roomId: string, connectionId: string): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.accountSockets(account), ConsistentRead: true }),
    );
    const others = Object.keys(Item ? accountSocketsSchema.parse(Item).conns : {}).filter((id) => id !== connectionId);
    if (others.length === 0) return false;
    let request: BatchGetCommandInput['RequestItems'] = {
      [this.tableName]: {
        Keys: others.map((other) => keys.roomSubscription(roomId, other)),
        ConsistentRead: true,
        ProjectionExpression: 'pk',
      },
    };
    // At most perAccount - 1 keys: a busy table may still leave some unprocessed for another round.
    while (request && Object.keys(request).length > 0) {
      const answer: BatchGetCommandOutput = await this.db.send(new BatchGetCommand({ RequestItems: request }));
      if ((answer.Responses?.[this.tableName]?.length ?? 0) > 0) return true;
      request = answer.UnprocessedKeys;
    }
    return false;
  }

  /** REMOVEs one entry of a map attribute, if the item is still there (an update would create it). */
  private async removeEntry(key: { pk: string; sk: string }, attribute: string, entry: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'REMOVE #map.#entry',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#map': attribute, '#entry': entry },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
