import {
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import type { HeartbeatPipeline, SweeperMemory } from './heartbeat-evidence';

/** What a consumer reports about the heartbeat pipeline (core/rooms/heartbeat-evidence.ts). */
export type PipelineReport = { readonly heardAt: Date } | { readonly disruptedAt: Date };

/**
 * The sweeper's memory between runs, one item in the table: a Lambda keeps nothing between
 * invocations, and the local cloud's sweeper must judge its own lateness the same way.
 * Beside it, in the same partition, what the consumers report about the heartbeat pipeline:
 * one Query reads both, for the sweeper and for a join that found a room silent.
 */
export class SweeperStateStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(): Promise<SweeperMemory> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.sweeperState(), ConsistentRead: true }),
    );
    return {
      ...(typeof Item?.lastSweepAt === 'string' ? { lastSweepAt: Item.lastSweepAt } : {}),
      ...(typeof Item?.graceUntil === 'string' ? { graceUntil: Item.graceUntil } : {}),
      ...(typeof Item?.judgedAt === 'string' ? { judgedAt: Item.judgedAt } : {}),
    };
  }

  /** Last writer wins: overlapping sweeps remember about the same instant. */
  async write(memory: SweeperMemory): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.tableName, Item: { ...keys.sweeperState(), type: 'sweeper', ...memory } }),
    );
  }

  /** The consumers' reports and the sweeper's grace period, in one strongly consistent Query. */
  async pipeline(): Promise<HeartbeatPipeline> {
    const { pk } = keys.heartbeatPipeline();
    const { Items = [] } = await this.db.send(
      new QueryCommand({
        TableName: this.tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': pk },
        ConsistentRead: true,
      }),
    );
    const text = (sk: string, field: string): Record<string, string> => {
      const value = Items.find((item) => item.sk === sk)?.[field];
      return typeof value === 'string' ? { [field]: value } : {};
    };
    return {
      ...text(keys.heartbeatPipeline().sk, 'heardAt'),
      ...text(keys.heartbeatPipeline().sk, 'disruptedAt'),
      ...text(keys.sweeperState().sk, 'graceUntil'),
      ...text(keys.sweeperState().sk, 'judgedAt'),
    };
  }

  /**
   * Records one report. Last writer wins: consumers report at most about once a second each,
   * and an instant moved back by a concurrent writer is off by that much at most.
   */
  async report(report: PipelineReport): Promise<void> {
    const [field, at] = 'heardAt' in report ? ['heardAt', report.heardAt] : ['disruptedAt', report.disruptedAt];
    await this.db.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: keys.heartbeatPipeline(),
        UpdateExpression: 'SET #type = :type, #field = :at',
        ExpressionAttributeNames: { '#type': 'type', '#field': field },
        ExpressionAttributeValues: { ':type': 'heartbeat-pipeline', ':at': at.toISOString() },
      }),
    );
  }
}
