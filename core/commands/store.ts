import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import { commandRetentionS, type CommandOutcome, type CommandRecord } from './model';

/** Owners' commands, one item per command under its room: what the use cases depend on. */
export interface Commands {
  /** Writes a new record; a commandId is a fresh uuid, so it never exists yet. */
  create(record: CommandRecord): Promise<void>;
  /** Strongly consistent: an answer recorded a moment ago reads back. */
  find(roomId: string, commandId: string): Promise<CommandRecord | undefined>;
  /**
   * Records the game's answer on the room's command, only if that command exists, is still
   * `sent` and its `answerBy` has not passed at `now`. Returns whether it applied: a forged,
   * repeated or late answer changes nothing.
   */
  recordOutcome(roomId: string, commandId: string, outcome: CommandOutcome, now: Date): Promise<boolean>;
}

export class CommandStore implements Commands {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async create(record: CommandRecord): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.command(record.roomId, record.commandId),
          type: 'command',
          ...record,
          ttl: Math.ceil(Date.parse(record.createdAt) / 1000) + commandRetentionS,
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      }),
    );
  }

  async find(roomId: string, commandId: string): Promise<CommandRecord | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.command(roomId, commandId), ConsistentRead: true }),
    );
    if (!Item) return undefined;
    const { pk: _pk, sk: _sk, type: _type, ttl: _ttl, ...record } = Item;
    return record as CommandRecord;
  }

  async recordOutcome(roomId: string, commandId: string, outcome: CommandOutcome, now: Date): Promise<boolean> {
    const answer =
      outcome.state === 'answered'
        ? { name: '#result', value: outcome.result }
        : { name: '#error', value: outcome.error };
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.command(roomId, commandId),
          UpdateExpression: `SET #state = :state, #answeredAt = :now, ${answer.name} = :answer`,
          // commandExists AND commandIsSent AND answerByNotPassed
          ConditionExpression: 'attribute_exists(pk) AND #state = :sent AND #answerBy > :now',
          ExpressionAttributeNames: {
            '#state': 'state',
            '#answeredAt': 'answeredAt',
            '#answerBy': 'answerBy',
            [answer.name]: answer.name.slice(1),
          },
          ExpressionAttributeValues: {
            ':state': outcome.state,
            ':sent': 'sent',
            ':now': now.toISOString(),
            ':answer': answer.value,
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
