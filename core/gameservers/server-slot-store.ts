import { GetCommand, QueryCommand, TransactWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { conditionFailedAt, isConditionFailure, retryOnContention } from '../infra/dependency-errors';
import { keys, type ItemKey } from '../infra/keys';
import { hostClaim, hostRelease } from '../placement/fleet-store';
import type { Host } from '../placement/fleet-model';
import { HostRefusedError, NoHealthyHostError } from './errors';

/**
 * Running-server caps (docs/cost-bounds.md), race-safe: one counter item for the deployment,
 * one per configuration, and one lease item per room, all in one partition. Acquiring is one
 * transaction (both counters conditionally incremented, the lease put); releasing is one
 * transaction (lease deleted, both counters decremented) that applies at most once per room,
 * because it is conditional on the lease. Parallel creates serialize on the counters inside
 * DynamoDB: against a cap of K exactly K leases exist, however many ask.
 *
 * The partition takes one write per create and per end: far below DynamoDB's per-partition
 * 1,000 WCU/s at the RunTask rate (20/s).
 */
const partition = keys.serverSlotPartition;
const globalCounter = keys.runningServers();
const configurationCounter = keys.runningServersOf;
const leaseKey = keys.serverLease;
const leasePrefix = keys.serverLeasePrefix;
/** Parallel creates conflict on the counters: transactions that lose are retried, not refused. */
const acquireAttempts = 25;

export interface ServerCaps {
  readonly global: number;
  readonly configuration: number;
}

export interface ServerLease {
  readonly roomId: string;
  readonly gameId: string;
  readonly version: string;
  /** ISO instant the slot was taken. */
  readonly acquiredAt: string;
  /** The host the server runs on, when the fleet has hosts: its `placed` counter holds this slot too. */
  readonly hostId?: string;
}

/** The host a slot is taken on, as placement saw it at `now`. */
export interface HostSlot {
  readonly host: Host;
  readonly now: Date;
}

export interface ServerSlots {
  /**
   * Takes a slot for `roomId` (and on `on.host`, if given), or throws `NoHealthyHostError`
   * when a cap is reached, `HostRefusedError` when the host is no longer healthy or full.
   * Idempotent.
   */
  acquire(lease: ServerLease, caps: ServerCaps, on?: HostSlot): Promise<void>;
  /** Gives back the room's slot; a room holding none (already released) is not an error. */
  release(roomId: string): Promise<boolean>;
  /** Every lease held (the sweeper releases those whose room ended). */
  leases(): Promise<ServerLease[]>;
  /** Servers counted as running: the deployment's, and one configuration's. */
  running(gameId?: string, version?: string): Promise<number>;
}

export class ServerSlotStore implements ServerSlots {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  ) {}

  async acquire(lease: ServerLease, caps: ServerCaps, on?: HostSlot): Promise<void> {
    const increment = (key: ItemKey, cap: number) => ({
      Update: {
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'ADD #running :one SET #type = :type',
        ConditionExpression: 'attribute_not_exists(#running) OR #running < :cap',
        ExpressionAttributeNames: { '#running': 'running', '#type': 'type' },
        ExpressionAttributeValues: { ':one': 1, ':cap': cap, ':type': 'server-count' },
      },
    });
    const write = new TransactWriteCommand({
      TransactItems: [
        increment(globalCounter, caps.global),
        increment(configurationCounter(lease.gameId, lease.version), caps.configuration),
        {
          Put: {
            TableName: this.tableName,
            Item: {
              ...leaseKey(lease.roomId),
              type: 'server-lease',
              ...lease,
              ...(on ? { hostId: on.host.hostId } : {}),
            },
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        ...(on ? [hostClaim(this.tableName, on.host, on.now)] : []),
      ],
    });
    try {
      await retryOnContention(() => this.db.send(write), { maxAttempts: acquireAttempts, sleep: this.sleep });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // The lease is there already: a retried create took its slot before.
      if (conditionFailedAt(error, 2)) return;
      if (on && conditionFailedAt(error, 3)) {
        throw new HostRefusedError(
          `Host ${on.host.hostId} took no new server: full, draining or unhealthy since it was read.`,
          {
            details: { reason: 'host-refused', hostId: on.host.hostId },
          },
        );
      }
      const which = conditionFailedAt(error, 0) ? 'the deployment' : 'this configuration';
      const cap = conditionFailedAt(error, 0) ? caps.global : caps.configuration;
      throw new NoHealthyHostError(
        `No game server can be started: ${which} already runs its maximum of ${cap}. Retry later.`,
        { details: { reason: 'server-cap' }, headers: { 'retry-after': '30' } },
      );
    }
  }

  async release(roomId: string): Promise<boolean> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: leaseKey(roomId), ConsistentRead: true }),
    );
    if (!Item) return false;
    const decrement = (key: ItemKey) => ({
      Update: {
        TableName: this.tableName,
        Key: key,
        UpdateExpression: 'ADD #running :minus',
        ConditionExpression: '#running > :zero',
        ExpressionAttributeNames: { '#running': 'running' },
        ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
      },
    });
    const hostId = typeof Item.hostId === 'string' ? Item.hostId : undefined;
    const release = (withHost: boolean) =>
      retryOnContention(
        () =>
          this.db.send(
            new TransactWriteCommand({
              TransactItems: [
                {
                  Delete: {
                    TableName: this.tableName,
                    Key: leaseKey(roomId),
                    ConditionExpression: 'attribute_exists(pk)',
                  },
                },
                decrement(globalCounter),
                decrement(configurationCounter(String(Item.gameId), String(Item.version))),
                ...(withHost && hostId ? [hostRelease(this.tableName, hostId)] : []),
              ],
            }),
          ),
        { maxAttempts: acquireAttempts, sleep: this.sleep },
      );
    try {
      await release(true);
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Someone else released it between the read and the write.
      if (conditionFailedAt(error, 0) || !hostId) return false;
      // The host's counter is not there to decrement (the item was replaced): the slot still goes back.
      try {
        await release(false);
        return true;
      } catch (again) {
        if (isConditionFailure(again)) return false;
        throw again;
      }
    }
  }

  async leases(): Promise<ServerLease[]> {
    const found: ServerLease[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': partition, ':prefix': leasePrefix },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        found.push({
          roomId: String(item.roomId),
          gameId: String(item.gameId),
          version: String(item.version),
          acquiredAt: String(item.acquiredAt),
          ...(typeof item.hostId === 'string' ? { hostId: item.hostId } : {}),
        });
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return found;
  }

  async running(gameId?: string, version?: string): Promise<number> {
    const key = gameId !== undefined && version !== undefined ? configurationCounter(gameId, version) : globalCounter;
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: key, ConsistentRead: true }));
    return typeof Item?.running === 'number' ? Item.running : 0;
  }
}
