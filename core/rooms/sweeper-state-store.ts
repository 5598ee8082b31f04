import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import type { SweeperMemory } from './heartbeat-evidence';

/**
 * The sweeper's memory between runs, one item in the table: a Lambda keeps nothing between
 * invocations, and the local cloud's sweeper must judge its own lateness the same way.
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
    };
  }

  /** Last writer wins: overlapping sweeps remember about the same instant. */
  async write(memory: SweeperMemory): Promise<void> {
    await this.db.send(
      new PutCommand({ TableName: this.tableName, Item: { ...keys.sweeperState(), type: 'sweeper', ...memory } }),
    );
  }
}
