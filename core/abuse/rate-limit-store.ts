import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import { counterTtl, rateWindow, retryAfterSeconds, type RateLimitPolicy } from './rate-limit';

/** Outcome of counting one request: expected refusals are results, not exceptions. */
export type RateCountResult =
  | { readonly state: 'Counted'; readonly count: number }
  | { readonly state: 'Exhausted'; readonly retryAfterS: number }
  /** Throttled even after the SDK's own jittered retries: the caller should back off. */
  | { readonly state: 'Contention'; readonly retryAfterS: number; readonly cause: unknown };

/** Each clause of the counter's condition, by name. */
export const rateConditions = {
  windowHasRoom: '(attribute_not_exists(#count) OR #count < :limit)',
} as const;

/** Throttling and conflicts are contention: worth a retry later, never a 500. */
const contentionErrors = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'TransactionConflictException',
]);

/**
 * Fixed-window counters, one item per account, action and window. Counting is ONE conditional
 * UpdateItem (ADD 1 if the count is below the limit), so any number of parallel requests
 * from one account let exactly `limit` through per window and refused ones count nothing.
 * SDK exceptions never leave this module except as bugs (an unknown failure).
 */
export class RateLimitStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /** Counts one `policy.action` request of `account` in the window `now` falls in, if it still has room. */
  async count(account: string, policy: RateLimitPolicy, now: Date): Promise<RateCountResult> {
    const window = rateWindow(now, policy.windowS);
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.rateWindow(account, policy.action, window.startS),
          UpdateExpression: 'ADD #count :one SET #type = :type, #ttl = :ttl',
          ConditionExpression: rateConditions.windowHasRoom,
          ExpressionAttributeNames: { '#count': 'count', '#type': 'type', '#ttl': 'ttl' },
          ExpressionAttributeValues: {
            ':one': 1,
            ':limit': policy.limit,
            ':type': 'rateWindow',
            ':ttl': counterTtl(window),
          },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return { state: 'Counted', count: Number(Attributes?.count ?? 0) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return { state: 'Exhausted', retryAfterS: retryAfterSeconds(now, window) };
      }
      if (error instanceof Error && contentionErrors.has(error.name)) {
        return { state: 'Contention', retryAfterS: 1, cause: error };
      }
      throw error;
    }
  }
}
