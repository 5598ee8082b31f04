import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../infra/keys';
import type { RateLimitPolicy } from './rate-limit';

/** One lease slot as stored: who holds it, until when (epoch ms). */
export interface StoredLease {
  readonly h: string;
  readonly u: number;
}

export interface LeaseRequest {
  readonly holder: string;
  readonly slots: readonly number[];
  /** The lease's end (epoch ms). */
  readonly until: number;
  /** A slot whose lease ended before this instant (epoch ms) may be taken over. */
  readonly reusableBefore: number;
  readonly ttlS: number;
}

export type LeaseOutcome =
  | { readonly leased: true }
  /** Some slot is held by another process: each wanted slot as it stood. */
  | { readonly leased: false; readonly current: ReadonlyMap<number, StoredLease | undefined> };

const slotName = (i: number) => `s${i}`;

/** The lease slots of an action (core/abuse/permit-leases.ts), one item per action and limit. */
export class PermitLeaseStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Takes (or renews) every wanted slot in one conditional write: each free, ours, or reusable. */
  async tryLease(policy: RateLimitPolicy, request: LeaseRequest): Promise<LeaseOutcome> {
    const names: Record<string, string> = { '#type': 'type', '#ttl': 'ttl' };
    const values: Record<string, unknown> = {
      ':lease': { h: request.holder, u: request.until } satisfies StoredLease,
      ':me': request.holder,
      ':reusable': request.reusableBefore,
      ':type': 'permitLeases',
      ':ttl': request.ttlS,
    };
    const sets = ['#type = :type', '#ttl = :ttl'];
    const conditions: string[] = [];
    for (const i of request.slots) {
      names[`#s${i}`] = slotName(i);
      sets.push(`#s${i} = :lease`);
      conditions.push(`(attribute_not_exists(#s${i}) OR #s${i}.h = :me OR #s${i}.u <= :reusable)`);
    }
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.permitLeases(policy.action, policy.limit),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { leased: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const item = error.Item ? unmarshall(error.Item) : {};
      return {
        leased: false,
        current: new Map(request.slots.map((i) => [i, item[slotName(i)] as StoredLease | undefined])),
      };
    }
  }
}
