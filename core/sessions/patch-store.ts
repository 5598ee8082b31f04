import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { keys } from '../infra/keys';
import { roomOf } from '../rooms/store';
import { documentOf } from './document';
import type { UpdateSpec } from './join-conditions';
import type { SessionRead } from './store';

/** A PATCH's write: applied (the document as it now is), or refused (as it stood). */
export type SessionWriteResult =
  { readonly applied: true; readonly read: SessionRead } | { readonly applied: false; readonly current?: SessionRead };

/** The writes of the session PATCH routes and of a session's end (core/sessions/patch.ts). */
export interface SessionWrites {
  /** One conditional UpdateItem (core/sessions/patch-conditions.ts); the whole new document back. */
  update(roomId: string, spec: UpdateSpec): Promise<SessionWriteResult>;
  /** Deletes a session that is over, IF it is still at this change number (nothing joined meanwhile). */
  end(roomId: string, changeNumber: number): Promise<boolean>;
}

const readOf = (item: Record<string, unknown>): SessionRead => ({ room: roomOf(item), doc: documentOf(item) });

/** `SessionWrites` on the single table. */
export class SessionWriteStore implements SessionWrites {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async update(roomId: string, spec: UpdateSpec): Promise<SessionWriteResult> {
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          ...spec,
          // The room must exist: an UpdateItem would otherwise create a stray item.
          ConditionExpression: `attribute_exists(pk) AND ${spec.ConditionExpression}`,
          // Not the join's hot path: the answer shows the whole room, so the whole item comes back.
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { applied: true, read: readOf(Attributes ?? {}) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return { applied: false, ...(error.Item ? { current: readOf(unmarshall(error.Item)) } : {}) };
      }
      throw error;
    }
  }

  async end(roomId: string, changeNumber: number): Promise<boolean> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          ConditionExpression: '#cn = :cn',
          ExpressionAttributeNames: { '#cn': 'changeNumber' },
          ExpressionAttributeValues: { ':cn': changeNumber },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}
