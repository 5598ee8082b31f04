import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { classifyDependencyError } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import type { Member } from '../rooms/member';
import { roomOf } from '../rooms/room-item';
import type { Room } from '../rooms/model';
import {
  docMember,
  documentOf,
  enterState,
  expiredMembers,
  expiryOf,
  isLiveMember,
  memberOf,
  memberOfKey,
  memberStateOf,
  preConfirmation,
  storedKeyHash,
  tombstoneOf,
  tombstoneRequest,
  tombstonesToPrune,
  type DocMember,
  type SessionDocument,
  type StoredMember,
} from './document';
import {
  claimUpdate,
  classifyClaimFailure,
  maxReclaimPerWrite,
  reclaimAndClaimUpdate,
  type ClaimFailure,
  type ClaimSpec,
  type UpdateSpec,
} from './join-conditions';
import { isItemTooLarge, SessionDocumentFullError, SessionMemberTooLargeError } from './errors';
import { memberBudgetIssue, roomItemBudget } from './item-budget';
import type { SessionTimeouts } from './model';

/** A room as one consistent read sees it: the room fields and its members. */
export interface SessionRead {
  readonly room: Room;
  readonly doc: SessionDocument;
}

/** What a successful claim hands back (`UPDATED_NEW`): enough to answer without a read. */
export interface Claimed {
  readonly state: 'Claimed';
  readonly roomState: Room['state'];
  readonly players: number;
  readonly changeNumber: number;
}

export type ClaimResult = Claimed | ClaimFailure | { readonly state: 'Contention'; readonly cause: unknown };

export type ConfirmResult =
  | { readonly state: 'Confirmed'; readonly member: Member }
  /** The request that used the key, delivered again: answer as then. */
  | { readonly state: 'AlreadyConfirmed'; readonly member: Member }
  | { readonly state: 'Rejected'; readonly reason: 'unknown-key' | 'expired' | 'used' };

export type AbandonResult = 'Reverted' | 'NothingToUndo';
export type LeaveResult = { readonly state: 'Left' } | { readonly state: 'Rejected' };

/**
 * Members of rooms, all inside the room item (core/sessions/document.ts). Every change is one
 * conditional UpdateItem on that item; nothing here uses a transaction.
 */
export class SessionStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * One conditional UpdateItem on the room's item: whether it was applied. A failed condition
   * means "the document changed under us"; the caller decides what that answers.
   */
  private async updateIf(roomId: string, update: UpdateSpec): Promise<boolean> {
    try {
      await this.db.send(new UpdateCommand({ TableName: this.tableName, Key: keys.room(roomId), ...update }));
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      if (isItemTooLarge(error)) throw new SessionDocumentFullError(roomId, { cause: error });
      throw error;
    }
  }

  /** One strongly consistent read of the whole document. */
  async read(roomId: string): Promise<SessionRead | undefined> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.room(roomId), ConsistentRead: true }),
    );
    return Item ? { room: roomOf(Item), doc: documentOf(Item) } : undefined;
  }

  async list(roomId: string): Promise<Member[]> {
    const read = await this.read(roomId);
    if (!read) return [];
    return Object.entries(read.doc.members).map(([account, m]) => memberView(read.room, account, m, m.k));
  }

  async find(roomId: string, account: string): Promise<Member | undefined> {
    return (await this.list(roomId)).find((m) => m.account === account);
  }

  /** The join's one write (core/sessions/join-conditions.ts `claimUpdate`). */
  async claim(roomId: string, spec: ClaimSpec, now: number): Promise<ClaimResult> {
    return this.claimWith(roomId, claimUpdate(spec), spec, now);
  }

  /** Removes exactly these expired members and claims, in one write. */
  async reclaimAndClaim(
    roomId: string,
    spec: ClaimSpec & { expired: readonly DocMember[]; maxPlayers: number },
    now: number,
  ): Promise<ClaimResult> {
    return this.claimWith(roomId, reclaimAndClaimUpdate(spec), spec, now);
  }

  private async claimWith(roomId: string, update: UpdateSpec, spec: ClaimSpec, now: number): Promise<ClaimResult> {
    // The one write that adds a member: it may take no more than its share of the item.
    const issue = memberBudgetIssue(spec.account, { ...spec.member, k: spec.keyHash });
    if (issue !== undefined) throw new SessionMemberTooLargeError(roomId, issue);
    try {
      const { Attributes = {} } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          ...update,
          ReturnValues: 'UPDATED_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return {
        state: 'Claimed',
        roomState: Attributes.state as Room['state'],
        players: Number(Attributes.players),
        changeNumber: Number(Attributes.changeNumber),
      };
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) {
        return classifyClaimFailure(
          error.Item ? unmarshall(error.Item) : undefined,
          spec.account,
          now,
          spec.heartbeatSince,
        );
      }
      if (isItemTooLarge(error)) throw new SessionDocumentFullError(roomId, { cause: error });
      // A busy item or DynamoDB (a running transaction, throttling, slow to answer) is retried
      // within the join's deadline. A timed-out claim may have been applied: its retry then finds
      // the account a member (AlreadyMember) and re-keys the same slot, so no slot is taken twice.
      const kind = classifyDependencyError(error)?.kind;
      if (kind === 'contention' || kind === 'throttled' || kind === 'timeout')
        return { state: 'Contention', cause: error };
      throw error;
    }
  }

  /**
   * A member who joins again keeps its slot with a fresh key (the old key stops working, an
   * unused confirmation mark goes): IF the old key is still its key AND its state clock is
   * unchanged AND it has not expired.
   */
  async reissueKey(
    roomId: string,
    change: { account: string; member: StoredMember; oldKeyHash?: string; newKeyHash: string; now: number },
  ): Promise<'Reissued' | 'Gone'> {
    const names: Record<string, string> = { '#members': 'members', '#a': change.account, '#cn': 'changeNumber' };
    const values: Record<string, unknown> = {
      ':new': change.newKeyHash,
      ':t': change.member.t,
      ':now': change.now,
      ':one': 1,
    };
    // A stored expiry is checked here; a derived one (`t` + the template's timeout) is fixed by
    // the state clock `t`, and the caller judged it live at `now` from the same read.
    const conditions = ['#members.#a.t = :t', '(attribute_not_exists(#members.#a.e) OR #members.#a.e > :now)'];
    if (change.oldKeyHash === undefined) {
      conditions.push('attribute_not_exists(#members.#a.k)');
    } else {
      values[':old'] = change.oldKeyHash;
      conditions.push('#members.#a.k = :old');
    }
    return (await this.updateIf(roomId, {
      UpdateExpression: 'SET #members.#a.k = :new, #cn = #cn + :one REMOVE #members.#a.u',
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }))
      ? 'Reissued'
      : 'Gone';
  }

  /**
   * Undoes a claim the account checks refused after it was written (they run beside it):
   * removes exactly that member IF it still holds that key, or, for a re-keyed member, puts
   * its old key back IF the new one is still current. Anything that changed since wins.
   */
  async undoClaim(
    roomId: string,
    undo: { account: string; keyHash: string; previousKeyHash?: string; reissued: boolean },
  ): Promise<void> {
    const names: Record<string, string> = {
      '#members': 'members',
      '#a': undo.account,
      '#players': 'players',
      '#cn': 'changeNumber',
    };
    const values: Record<string, unknown> = { ':h': undo.keyHash, ':one': 1 };
    let expression: string;
    if (undo.reissued) {
      if (undo.previousKeyHash === undefined) {
        expression = 'SET #cn = #cn + :one REMOVE #members.#a.k';
      } else {
        values[':old'] = undo.previousKeyHash;
        expression = 'SET #members.#a.k = :old, #cn = #cn + :one';
      }
      delete names['#players'];
    } else {
      expression = 'SET #players = #players - :one, #cn = #cn + :one REMOVE #members.#a';
    }
    await this.updateIf(roomId, {
      UpdateExpression: expression,
      ConditionExpression: '#members.#a.k = :h',
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /**
   * Frees the slots of members whose time ran out before `now` (lazy expiry: no timer, no
   * TTL), one conditional write per batch: each removal holds only if that member is still
   * as it was read. Returns how many it freed. `read`: a document already in hand.
   */
  async reclaimExpired(roomId: string, now: Date, read?: SessionRead): Promise<number> {
    const current = read ?? (await this.read(roomId));
    if (!current) return 0;
    const expired = expiredMembers(current.doc, current.room, now.getTime());
    let freed = 0;
    for (let i = 0; i < expired.length; i += maxReclaimPerWrite) {
      const batch = expired.slice(i, i + maxReclaimPerWrite);
      if (await this.removeMembers(roomId, batch, now, departedAt(current, batch))) freed += batch.length;
    }
    return freed;
  }

  /**
   * `emptySince`: when the last of `batch` left (an expiry, or `now` for a leave), written in
   * the same write so a session left empty knows since when (core/sessions/room-response.ts).
   */
  private async removeMembers(
    roomId: string,
    batch: readonly DocMember[],
    now: Date,
    emptySince: number,
    /** `seen`: how many tombstones the read showed; `prune`: which of them go in this write. */
    tombstone?: { keyHash: string; value: string; prune: readonly string[]; seen: number },
  ): Promise<boolean> {
    const names: Record<string, string> = { '#members': 'members', '#players': 'players', '#cn': 'changeNumber' };
    const values: Record<string, unknown> = {
      ':n': batch.length,
      ':one': 1,
      ':now': now.toISOString(),
      ':emptySince': emptySince,
    };
    const removals: string[] = [];
    const conditions: string[] = ['#players >= :n'];
    batch.forEach((x, i) => {
      names[`#x${i}`] = x.account;
      values[`:t${i}`] = x.member.t;
      removals.push(`#members.#x${i}`);
      conditions.push(`#members.#x${i}.t = :t${i}`);
      if (x.keyHash !== undefined) {
        values[`:k${i}`] = x.keyHash;
        conditions.push(`#members.#x${i}.k = :k${i}`);
      }
    });
    let set = '#players = #players - :n, #cn = #cn + :one, updatedAt = :now, emptySince = :emptySince';
    if (tombstone) {
      names['#gone'] = 'gone';
      names['#g'] = tombstone.keyHash;
      values[':g'] = tombstone.value;
      set += ', #gone.#g = :g';
      tombstone.prune.forEach((hash, i) => {
        names[`#p${i}`] = hash;
        removals.push(`#gone.#p${i}`);
        conditions.push(`attribute_exists(#gone.#p${i})`);
      });
      // goneStaysBounded: with each pruned tombstone still there, the map ends at most at the
      // bound, or (a room stored with more) no larger than it was read.
      values[':goneBefore'] = Math.max(roomItemBudget.tombstones - 1 + tombstone.prune.length, tombstone.seen);
      conditions.push('size(#gone) <= :goneBefore');
    }
    return this.updateIf(roomId, {
      UpdateExpression: `SET ${set} REMOVE ${removals.join(', ')}`,
      ConditionExpression: conditions.join(' AND '),
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
  }

  /**
   * `joined`, the second of its two round trips (the first is `read`): reserved → active,
   * once, for the holder of the key, before the reservation expires (judged against `now`).
   * The confirming request id and time are written in the same conditional update, and the
   * reservation as it was is kept, so `abandon` can undo a confirmation the game never saw.
   *
   * `requestId` is the game's request (`gameRequestId`), not the forward's: a key is single
   * use, and only the request that used it, delivered again (an SQS redelivery or the game's
   * retry with the same JSON-RPC id), gets the first confirmation back: same member, same
   * `confirmedAt`, hence the same token (`usedKeyAnswer`). Any other request with that key is
   * rejected and writes nothing. A key of another room is held by no member of this room; a
   * key whose player has left is in `gone`.
   */
  async confirm(read: SessionRead, keyHashHex: string, requestId: string, now: Date): Promise<ConfirmResult> {
    const roomId = read.room.roomId;
    const hash = storedKeyHash(keyHashHex);
    const found = memberOfKey(read.doc, hash);
    if (!found) return { state: 'Rejected', reason: 'unknown-key' };
    const { account, member: raw } = found;
    // Every field checked: what is confirmed here ends up in a signed token.
    const member = memberOf(raw, account);
    if (member.u !== undefined) return usedKeyAnswer(read.room, account, member, hash, requestId);
    if (!isLiveMember(member, read.room, now.getTime())) return { state: 'Rejected', reason: 'expired' };
    const wasActive = memberStateOf(member.s) === 'active';
    // The copy kept for `abandon` is the reservation's state and clock: the key, scopes and
    // properties stay the member's (stored once), and `abandon` keeps them.
    const confirmed: StoredMember = {
      ...(wasActive ? member : { ...enterState('active', now.getTime(), noTimeouts, member), ...ownFields(member) }),
      u: requestId,
      a: now.getTime(),
      ...(wasActive ? {} : { b: preConfirmation(member) }),
    };
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.room(roomId),
          UpdateExpression: 'SET #members.#a = :m, #cn = #cn + :one',
          // keyMatches AND sameMemberAsRead (its state clock) AND keyUnused AND roomIsLive
          ConditionExpression:
            '#members.#a.k = :h AND #members.#a.t = :t AND attribute_not_exists(#members.#a.u) AND #state IN (:spawning, :ready)',
          ExpressionAttributeNames: {
            '#members': 'members',
            '#a': account,
            '#cn': 'changeNumber',
            '#state': 'state',
          },
          ExpressionAttributeValues: {
            ':m': confirmed,
            ':h': hash,
            ':t': member.t,
            ':one': 1,
            ':spawning': 'spawning',
            ':ready': 'ready',
          },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { state: 'Confirmed', member: memberView(read.room, account, confirmed, hash) };
    } catch (error) {
      if (isItemTooLarge(error)) throw new SessionDocumentFullError(roomId, { cause: error });
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // A parallel duplicate confirmed first: judge again on the item as it stood.
      if (!error.Item) return { state: 'Rejected', reason: 'unknown-key' };
      const item = unmarshall(error.Item);
      return this.confirmAgainst({ room: roomOf(item), doc: documentOf(item) }, hash, requestId);
    }
  }

  private confirmAgainst(read: SessionRead, hash: string, requestId: string): ConfirmResult {
    const found = memberOfKey(read.doc, hash);
    if (!found) return { state: 'Rejected', reason: 'unknown-key' };
    const { account, member } = found;
    // Without `u` the write failed on something else (the member's clock moved, the room is no
    // longer live): there is no first answer to repeat.
    return member.u === undefined
      ? { state: 'Rejected', reason: 'used' }
      : usedKeyAnswer(read.room, account, member, hash, requestId);
  }

  /**
   * Undoes the confirmation the game request `requestId` (the identity `confirm` stored) made
   * with this key, because the game never got its answer (`abandoned`): the member becomes the
   * reservation it was, with its original expiry, so the game's retry (the same request again)
   * succeeds and without one the slot frees itself
   * when the reservation expires. A member that was already active stays active; only its key
   * becomes usable again. Nothing changes when another request confirmed it, or it left.
   */
  async abandon(roomId: string, keyHashHex: string, requestId: string): Promise<AbandonResult> {
    const read = await this.read(roomId);
    const hash = storedKeyHash(keyHashHex);
    const found = read && memberOfKey(read.doc, hash);
    if (!found || found.member.u !== requestId) return 'NothingToUndo';
    const { account, member } = found;
    // The member keeps the key, scopes and properties it holds (the copy in `b` repeats none).
    const restored: StoredMember = member.b
      ? { ...member.b, ...ownFields(member), k: hash }
      : { ...(({ u: _u, ...rest }) => rest)(member), k: hash };
    return (await this.updateIf(roomId, {
      UpdateExpression: 'SET #members.#a = :m, #cn = #cn + :one',
      // stillTheAbandonedConfirmation
      ConditionExpression: '#members.#a.k = :h AND #members.#a.u = :request',
      ExpressionAttributeNames: { '#members': 'members', '#a': account, '#cn': 'changeNumber' },
      ExpressionAttributeValues: { ':m': restored, ':h': hash, ':request': requestId, ':one': 1 },
    }))
      ? 'Reverted'
      : 'NothingToUndo';
  }

  /** Frees the key holder's slot at once (the game's `left`). A redelivery gets the same answer. */
  async leave(roomId: string, keyHashHex: string, requestId: string, now: Date): Promise<LeaveResult> {
    const hash = storedKeyHash(keyHashHex);
    for (let attempt = 0; attempt < 3; attempt++) {
      const read = await this.read(roomId);
      if (!read) return { state: 'Rejected' };
      const tomb = read.doc.gone[hash];
      if (tomb !== undefined) return tombstoneRequest(tomb) === requestId ? { state: 'Left' } : { state: 'Rejected' };
      // No member holds the key: it was never this room's, its member left by other means, or
      // its tombstone was pruned (older than the hour, or past the newest 128). Nobody is removed.
      const found = memberOfKey(read.doc, hash);
      if (!found) return { state: 'Rejected' };
      const { account, member } = found;
      if (await this.removeWithTombstone(roomId, read, { account, member, keyHash: hash }, requestId, now)) {
        return { state: 'Left' };
      }
    }
    return { state: 'Rejected' };
  }

  /** The player's own cancel or leave (`DELETE …/members/me`): only ever their own slot. */
  async leaveAsPlayer(roomId: string, account: string, now: Date): Promise<boolean> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const read = await this.read(roomId);
      const member = read?.doc.members[account];
      if (!read || !member) return false;
      // No tombstone: it would answer nothing differently. A later `left` or `joined` with the
      // member's key finds no member holding it and is rejected, tombstone or not.
      const left = Math.max(read.room.emptySince ?? 0, now.getTime());
      if (await this.removeMembers(roomId, [docMember(account, member)], now, left)) return true;
    }
    return false;
  }

  /**
   * Removes the key's member and records the `left` that did it in `gone`, in one write that
   * also prunes tombstones (`tombstonesToPrune`), so `gone` never holds more than
   * `roomItemBudget.tombstones` entries.
   */
  private removeWithTombstone(
    roomId: string,
    read: SessionRead,
    target: DocMember & { keyHash: string },
    requestId: string,
    now: Date,
  ): Promise<boolean> {
    const left = Math.max(read.room.emptySince ?? 0, now.getTime());
    return this.removeMembers(roomId, [target], now, left, {
      keyHash: target.keyHash,
      value: tombstoneOf(now.getTime(), requestId),
      prune: tombstonesToPrune(read.doc.gone, now.getTime(), maxReclaimPerWrite),
      seen: Object.keys(read.doc.gone).length,
    });
  }
}

/**
 * A used key presented again: the first answer for the request that used it (`u`), delivered
 * again; a rejection for any other request, whoever it comes from and whatever the member's
 * state, so someone who saw a player's key cannot take that player's seat with it.
 */
export function usedKeyAnswer(
  room: Room,
  account: string,
  member: StoredMember,
  keyHash: string,
  requestId: string,
): ConfirmResult {
  return member.u === requestId
    ? { state: 'AlreadyConfirmed', member: memberView(room, account, member, keyHash) }
    : { state: 'Rejected', reason: 'used' };
}

/** When the last of these expired members left: the latest expiry, never before an earlier departure. */
function departedAt(read: SessionRead, batch: readonly DocMember[]): number {
  return Math.max(read.room.emptySince ?? 0, ...batch.map((x) => expiryOf(x.member, read.room) ?? 0));
}

/** What a member holds whatever its state: its scopes and its own properties. */
const ownFields = (member: StoredMember): Pick<StoredMember, 'c' | 'q'> => ({
  ...(member.c === undefined ? {} : { c: member.c }),
  ...(member.q === undefined ? {} : { q: member.q }),
});

/** Confirmed members run no timeout in configuration rooms; templates may give `inactive` one. */
const noTimeouts: SessionTimeouts = { reservedMs: null, readyMs: null, inactiveMs: null, sessionEmptyMs: null };

/** A member as the platform (not the API) sees it. */
export function memberView(room: Room, account: string, m: StoredMember, keyHash?: string): Member {
  const expiry = expiryOf(m, room);
  return {
    roomId: room.roomId,
    account,
    state: memberStateOf(m.s),
    ...(keyHash === undefined ? {} : { keyHash }),
    scopes: m.c ?? [],
    ...(expiry === undefined ? {} : { expiresAt: new Date(expiry).toISOString() }),
    ...(m.p !== undefined && m.e === undefined ? { pending: true } : {}),
    ...(m.u === undefined ? {} : { keyUsedBy: m.u }),
    ...(m.a === undefined ? {} : { confirmedAt: new Date(m.a).toISOString() }),
    since: new Date(m.t).toISOString(),
  };
}
