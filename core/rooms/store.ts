import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { asDependencyUnavailable, isConditionFailure, retryOnContention } from '../infra/dependency-errors';
import { knownHost } from '../gameservers/server-address';
import { keys } from '../infra/keys';
import type { NewMember } from '../reservations/model';
import { newReservation, storedKeyHash, type StoredMember } from '../sessions/document';
import { isItemTooLarge, SessionDocumentFullError, SessionMemberTooLargeError } from '../sessions/errors';
import { itemBytes, memberBudgetIssue, roomItemBudget } from '../sessions/item-budget';
import { constantsOf } from '../sessions/model';
import type { Placement, Room, RoomFailureReason, RoomSettings } from './model';
import { RoomAlreadyExistsError, RoomNotFoundError } from './errors';

/** Outcome of a conditional state change: the room as written, or as it stood in the way. */
export type TransitionResult =
  { readonly applied: true; readonly room: Room } | { readonly applied: false; readonly room?: Room };

/** Attempts at creating a room while DynamoDB throttles. */
const createAttempts = 5;

/**
 * By default an ended room (and its members, in the same item) is collected by TTL a day after
 * it ended (`ENDED_ROOM_RETENTION_S`): long enough for GET to show why it failed.
 */
export const endedRoomTtlS = 86_400;

/** Room persistence. Storage failures leave this module only as room errors or results. */
export class RoomStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly sleep: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    private readonly endedRetentionS: number = endedRoomTtlS,
  ) {}

  /** The `ttl` (epoch seconds) of a room ending at `now`. */
  private ttlAfter(now: Date): number {
    return Math.ceil(now.getTime() / 1000) + this.endedRetentionS;
  }

  async create(room: Room): Promise<void> {
    await this.createWithMember(room);
  }

  /**
   * Writes a new room as its session document, with its creator's reservation in it, in one
   * conditional PutItem: a room is never visible with a slot count its members do not back.
   * A creator's reservation without a fixed expiry is pending: its clock starts at `inited`.
   */
  async createWithMember(room: Room, member?: NewMember): Promise<void> {
    const members = firstMembers(room, member);
    const item = roomItem(room, members);
    checkNewRoomBudget(room.roomId, item, members);
    const write = new PutCommand({
      TableName: this.tableName,
      Item: item,
      ConditionExpression: 'attribute_not_exists(pk)',
      ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
    });
    try {
      await retryOnContention(() => this.db.send(write), { maxAttempts: createAttempts, sleep: this.sleep });
    } catch (error) {
      // A put that timed out may still have been applied, and the SDK's retry then finds the
      // room it wrote itself: that is this creation succeeding, not a clash.
      if (isConditionFailure(error) && !isOwnCreation(error, room)) throw new RoomAlreadyExistsError(room.roomId);
      if (isConditionFailure(error)) return;
      if (isItemTooLarge(error)) throw new SessionDocumentFullError(room.roomId, { cause: error });
      throw asDependencyUnavailable(error) ?? error;
    }
  }

  /** Strongly consistent: a room that was just created or joined reads back as written. */
  async get(roomId: string): Promise<Room> {
    const room = await this.find(roomId);
    if (!room) throw new RoomNotFoundError(roomId);
    return room;
  }

  async find(roomId: string): Promise<Room | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.room(roomId), ConsistentRead: true }),
    );
    return Item ? roomOf(Item) : undefined;
  }

  /** Where the server runs. Any state: a fast server may call `inited` before the spawner returns. */
  async recordPlacement(roomId: string, placement: Placement, now: Date): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { placement, updatedAt: now.toISOString() },
      condition: 'attribute_exists(pk)',
    });
  }

  /**
   * spawning → ready, once, with the address players reach. `inited` settings replace the
   * room's. The request id is kept so a redelivered `inited` can be told apart from a second one.
   */
  async markReady(
    roomId: string,
    change: { settings?: RoomSettings; initedBy: string; address: string; now: Date },
  ): Promise<TransitionResult> {
    // Never ready without an address players can reach: the write cannot apply.
    if (!knownHost(change.address)) return { applied: false, room: await this.find(roomId) };
    return this.update(roomId, {
      set: {
        state: 'ready',
        // Ready and reachable in one write: no reader sees a ready room without an address.
        address: change.address,
        initedBy: change.initedBy,
        readyAt: change.now.toISOString(),
        lastHeartbeatAt: change.now.toISOString(),
        updatedAt: change.now.toISOString(),
        ...(change.settings ? { settings: change.settings } : {}),
      },
      // roomIsSpawning AND spawnDeadlineNotPassed
      condition: '#state = :spawning AND spawnDeadline > :now',
      values: { ':spawning': 'spawning', ':now': change.now.toISOString() },
    });
  }

  /** Any live room → failed. A failed room never becomes ready again. */
  async markFailed(roomId: string, reason: RoomFailureReason, now: Date): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { state: 'failed', failureReason: reason, updatedAt: now.toISOString(), ttl: this.ttlAfter(now) },
      unindex: true,
      condition: '#state IN (:spawning, :ready)',
      values: { ':spawning': 'spawning', ':ready': 'ready' },
    });
  }

  /**
   * ready → closed: the game ended cleanly after serving its players, or the platform ended
   * it (cost bounds). `unchangedSince`: only if no write (a join) touched the room since the
   * read that judged it empty.
   */
  async markClosed(roomId: string, now: Date, unchangedSince?: { changeNumber: number }): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { state: 'closed', updatedAt: now.toISOString(), ttl: this.ttlAfter(now) },
      unindex: true,
      condition: unchangedSince ? '#state = :ready AND #changeNumber = :expected' : '#state = :ready',
      values: { ':ready': 'ready', ...(unchangedSince ? { ':expected': unchangedSince.changeNumber } : {}) },
    });
  }

  /** Heartbeats keep a live room from being swept; they never revive a dead one. */
  async recordHeartbeat(roomId: string, now: Date): Promise<TransitionResult> {
    return this.update(roomId, {
      set: { lastHeartbeatAt: now.toISOString() },
      condition: '#state IN (:spawning, :ready)',
      values: { ':spawning': 'spawning', ':ready': 'ready' },
      bump: false,
    });
  }

  private async update(
    roomId: string,
    spec: {
      set: Record<string, unknown>;
      condition: string;
      values?: Record<string, unknown>;
      bump?: boolean;
      /** Dead rooms leave the indexes: no lookup ever offers them again. */
      unindex?: boolean;
    },
  ): Promise<TransitionResult> {
    const names: Record<string, string> = spec.condition.includes('#state') ? { '#state': 'state' } : {};
    const values: Record<string, unknown> = { ...spec.values };
    const assignments = Object.entries(spec.set).map(([name, value]) => {
      names[`#${name}`] = name;
      values[`:set_${name}`] = value;
      return `#${name} = :set_${name}`;
    });
    if (spec.bump !== false) {
      names['#changeNumber'] = 'changeNumber';
      values[':one'] = 1;
      assignments.push('#changeNumber = #changeNumber + :one');
    }
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          UpdateExpression: `SET ${assignments.join(', ')}${spec.unindex ? ` REMOVE ${keys.roomIndexAttributes.join(', ')}` : ''}`,
          ConditionExpression: `attribute_exists(pk) AND (${spec.condition})`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { applied: true, room: roomOf(Attributes ?? {}) };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return { applied: false, room: error.Item ? roomOf(unmarshall(error.Item)) : undefined };
      }
      throw error;
    }
  }
}

/**
 * The members map of a new room: its creator's reservation, if it has a creator. Its scopes
 * are kept as a join keeps them (`storedScopes`: within the room's `serverScopes`), so the
 * room must say what those are.
 */
export function firstMembers(
  room: Pick<Room, 'state' | 'constants' | 'maxPlayers' | 'reservationTimeoutS' | 'serverScopes'>,
  member?: NewMember,
): Record<string, StoredMember> {
  const members: Record<string, StoredMember> = {};
  if (!member) return members;
  const created = Date.parse(member.createdAt);
  const reservation: StoredMember =
    member.expiresAt === undefined
      ? newReservation(room, created, constantsOf(room).timeouts, member.scopes)
      : {
          // A fixed expiry: timed from now whatever the room's state (no pending `p`).
          ...newReservation({ ...room, state: 'ready' }, created, constantsOf(room).timeouts, member.scopes),
          e: Date.parse(member.expiresAt),
        };
  members[member.account] = { ...reservation, k: storedKeyHash(member.keyHash) };
  return members;
}

/**
 * A new room's item within its budget (core/sessions/item-budget.ts): its own fields within
 * their share, its creator within a member's. Every field a caller chooses is already capped
 * by its schema; this keeps a combination of them from starting a room it could not run.
 */
function checkNewRoomBudget(
  roomId: string,
  item: Record<string, unknown>,
  members: Readonly<Record<string, StoredMember>>,
): void {
  for (const [account, member] of Object.entries(members)) {
    const issue = memberBudgetIssue(account, member);
    if (issue !== undefined) throw new SessionMemberTooLargeError(roomId, issue);
  }
  const { members: _members, gone: _gone, ...fields } = item;
  const bytes = itemBytes(fields);
  if (bytes > roomItemBudget.roomFieldsBytes) {
    throw new SessionDocumentFullError(roomId, {
      why: `its own fields would take ${bytes} bytes of its item; the limit is ${roomItemBudget.roomFieldsBytes}`,
    });
  }
}

/** A room's whole item as `createWithMember` writes it: its session document and its index keys. */
export function roomItem(room: Room, members: Readonly<Record<string, StoredMember>>): Record<string, unknown> {
  return {
    ...keys.room(room.roomId),
    type: 'room',
    ...room,
    constants: constantsOf(room),
    members,
    gone: {},
    ...keys.roomIndexes(room),
  };
}

/** The room fields of a room item (its members are read through core/sessions/store.ts). */
export function roomOf(item: Record<string, unknown>): Room {
  const {
    pk: _pk,
    sk: _sk,
    type: _type,
    gsi1pk: _g1,
    gsi1sk: _g2,
    gsi2pk: _g3,
    gsi2sk: _g4,
    gsi3pk: _g5,
    gsi3sk: _g6,
    ttl: _ttl,
    members: _members,
    // `keys`: the former key map, ignored if a room still carries it.
    keys: _keys,
    gone: _gone,
    ...room
  } = item;
  return room as unknown as Room;
}

/** Whether the item a failed create condition returned is this very room (same owner, same creation instant). */
function isOwnCreation(error: unknown, room: Room): boolean {
  const item = (error as { Item?: Record<string, AttributeValue> }).Item;
  if (!item) return false;
  const existing = unmarshall(item);
  return existing.owner === room.owner && existing.createdAt === room.createdAt && existing.roomId === room.roomId;
}
