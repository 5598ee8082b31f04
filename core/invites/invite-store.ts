import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { isConditionFailure } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import { absent, allOf, exists, type Change, type Condition } from '../rooms/room-expression';
import type { ItemWrite } from '../rooms/room-store';
import { InviteeFullError } from './errors';

/**
 * The invites each account received: one item per account (`ACCOUNT#<account>` / `INVITES`,
 * core/infra/keys.ts), a map room id → who invited and until when. Written only in the invite's
 * own transaction (`inviteEntryWrite`, sent by the room store with the room's write) and by a
 * decline (`remove`); read by `GET /v1/me/invites`. An entry's expiry decides; TTL only
 * collects the item once its last entry has expired.
 */

/** One invite as stored: the inviting account, and when it expires (epoch ms). */
export interface StoredInvite {
  readonly by: string;
  readonly exp: number;
}

/** An account's invites item as read (`exists`: there is an item at all). */
export interface InviteBook {
  readonly account: string;
  readonly exists: boolean;
  readonly invites: Readonly<Record<string, StoredInvite>>;
}

/** An invite as `GET /v1/me/invites` shows it. */
export interface Invite {
  readonly roomId: string;
  readonly invitedBy: string;
  readonly expiresAt: string;
}

/** Live invites one account may hold at once: an inviter cannot flood another player's list. */
export const maxLiveInvitesPerAccount = 20;

const inviteItemSchema = z.object({
  invites: z.record(z.string(), z.object({ by: z.string(), exp: z.number() })),
});

/** The invites an account holds at `now`, soonest to expire first. */
export function liveInvites(book: InviteBook, now: number): Invite[] {
  return Object.entries(book.invites)
    .filter(([, invite]) => invite.exp > now)
    .sort(([, a], [, b]) => a.exp - b.exp)
    .map(([roomId, invite]) => ({ roomId, invitedBy: invite.by, expiresAt: new Date(invite.exp).toISOString() }));
}

const ttlOf = (expiresAt: number) => Math.ceil(expiresAt / 1000) + 60;

/**
 * The invites item's part of an invite's transaction: the entry for `roomId` set, the expired
 * entries pruned, IF the item is as read: no entry more than it held (its size) and each pruned
 * one still there, so the live entries after it are at most `maxLiveInvitesPerAccount`.
 *
 * @throws InviteeFullError when the account already holds that many live invites of other rooms.
 */
export function inviteEntryWrite(book: InviteBook, roomId: string, invite: StoredInvite, now: number): ItemWrite {
  const key = keys.accountInvites(book.account);
  const others = Object.entries(book.invites).filter(([id]) => id !== roomId);
  const kept = others.filter(([, entry]) => entry.exp > now);
  if (kept.length >= maxLiveInvitesPerAccount) throw new InviteeFullError(book.account, maxLiveInvitesPerAccount);
  const ttl = ttlOf(Math.max(invite.exp, ...kept.map(([, entry]) => entry.exp)));
  if (!book.exists) {
    return {
      key,
      condition: absent('pk'),
      change: {
        set: [
          [['invites'], { [roomId]: invite }],
          [['ttl'], ttl],
        ],
      },
    };
  }
  const pruned = others.filter(([, entry]) => entry.exp <= now).map(([id]) => id);
  const condition: Condition = allOf(
    { kind: 'sizeAtMost', path: ['invites'], max: Object.keys(book.invites).length },
    ...pruned.map((id) => exists('invites', id)),
  );
  const change: Change = {
    set: [
      [['invites', roomId], invite],
      [['ttl'], ttl],
    ],
    remove: pruned.map((id) => ['invites', id]),
  };
  return { key, condition, change };
}

/** The invites items' reads and the decline's removal; the writes of an invite are `inviteEntryWrite`. */
export interface InviteStore {
  /** Strongly consistent: the item an invite's transaction is conditioned on. */
  read(account: string): Promise<InviteBook>;
  /** Removes the account's invite to `roomId`, if it holds one. */
  remove(account: string, roomId: string): Promise<void>;
}

/** The invites items on the table. */
export class DynamoInviteStore implements InviteStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async read(account: string): Promise<InviteBook> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.accountInvites(account), ConsistentRead: true }),
    );
    if (!Item) return { account, exists: false, invites: {} };
    return { account, exists: true, invites: inviteItemSchema.parse(Item).invites };
  }

  async remove(account: string, roomId: string): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.accountInvites(account),
          UpdateExpression: 'REMOVE #invites.#room',
          // An update would otherwise create an empty item.
          ConditionExpression: 'attribute_exists(#invites.#room)',
          ExpressionAttributeNames: { '#invites': 'invites', '#room': roomId },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
  }
}
