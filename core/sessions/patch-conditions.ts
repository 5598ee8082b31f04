import type { DocMember, StoredMember } from './document';
import type { UpdateSpec } from './join-conditions';
import { maxReclaimPerWrite } from './join-conditions';
import type { SessionJoinability } from './model';

/**
 * The session PATCH routes as ONE conditional UpdateItem each. Pure: the store sends what
 * these build, the unit tests pin them.
 *
 * Every write also removes the other members whose time ran out (lazy expiry on every
 * write), each on condition it is still as it was read, and bumps the change number.
 */
export interface PatchBase {
  /** The writer: a member who was live when read, with this state clock. */
  readonly account: string;
  readonly memberT: number;
  /** `If-Match`: the write holds only while the change number is still this one. */
  readonly ifMatch?: number;
  /** Other members whose time ran out, as read (at most `maxReclaimPerWrite` are removed). */
  readonly expired: readonly DocMember[];
  readonly nowIso: string;
}

/** Each clause of a PATCH's condition, by name. */
export const patchClauses = {
  writerUnchanged: '#members.#a.t = :t',
  changeNumberMatches: '#cn = :ifMatch',
  propertiesExist: 'attribute_exists(#props)',
  propertiesAbsent: 'attribute_not_exists(#props)',
} as const;

interface Parts {
  set: string[];
  remove: string[];
  conditions: string[];
  names: Record<string, string>;
  values: Record<string, unknown>;
}

function baseParts(base: PatchBase): Parts {
  const parts: Parts = {
    set: ['#cn = #cn + :one', '#updatedAt = :now'],
    remove: [],
    conditions: [patchClauses.writerUnchanged],
    names: { '#members': 'members', '#a': base.account, '#cn': 'changeNumber', '#updatedAt': 'updatedAt' },
    values: { ':t': base.memberT, ':one': 1, ':now': base.nowIso },
  };
  if (base.ifMatch !== undefined) {
    parts.conditions.push(patchClauses.changeNumberMatches);
    parts.values[':ifMatch'] = base.ifMatch;
  }
  const others = base.expired.filter((x) => x.account !== base.account).slice(0, maxReclaimPerWrite);
  if (others.length > 0) {
    parts.names['#players'] = 'players';
    parts.values[':n'] = others.length;
    parts.set.push('#players = #players - :n');
    others.forEach((x, i) => {
      parts.names[`#x${i}`] = x.account;
      parts.values[`:t${i}`] = x.member.t;
      parts.remove.push(`#members.#x${i}`);
      parts.conditions.push(`#members.#x${i}.t = :t${i}`);
      if (x.keyHash !== undefined) {
        parts.values[`:k${i}`] = x.keyHash;
        parts.conditions.push(`#members.#x${i}.k = :k${i}`);
      }
    });
  }
  return parts;
}

function toSpec(parts: Parts): UpdateSpec {
  return {
    UpdateExpression: `SET ${parts.set.join(', ')}${parts.remove.length > 0 ? ` REMOVE ${parts.remove.join(', ')}` : ''}`,
    ConditionExpression: parts.conditions.join(' AND '),
    ExpressionAttributeNames: parts.names,
    ExpressionAttributeValues: parts.values,
  };
}

/**
 * `PATCH /v1/rooms/{roomId}`: the fields given, each written alone, so two members writing
 * different fields without `If-Match` never undo each other. A room stored without a
 * `properties` map (made before sessions) gets the whole map, once.
 *
 *   IF writerUnchanged AND (changeNumberMatches) AND each expired member unchanged
 *      AND propertiesExist | propertiesAbsent (as read)
 */
export function roomPropertiesUpdate(
  base: PatchBase,
  change: { readonly joinability?: SessionJoinability; readonly custom?: Record<string, unknown> },
  propertiesStored: boolean,
): UpdateSpec {
  const parts = baseParts(base);
  parts.names['#props'] = 'properties';
  if (propertiesStored) {
    parts.conditions.push(patchClauses.propertiesExist);
    if (change.joinability !== undefined) {
      parts.names['#joinability'] = 'joinability';
      parts.values[':joinability'] = change.joinability;
      parts.set.push('#props.#joinability = :joinability');
    }
    if (change.custom !== undefined) {
      parts.names['#custom'] = 'custom';
      parts.values[':custom'] = change.custom;
      parts.set.push('#props.#custom = :custom');
    }
  } else {
    parts.conditions.push(patchClauses.propertiesAbsent);
    parts.values[':props'] = { joinability: change.joinability ?? 'open', custom: change.custom ?? {} };
    parts.set.push('#props = :props');
  }
  return toSpec(parts);
}

/**
 * `PATCH /v1/rooms/{roomId}/members/me`: the writer's own entry only. A state change writes
 * the new state, its clock and its expiry (and drops a pending timeout and the
 * pre-confirmation copy); properties replace the member's `custom`. The writer's state clock
 * as read is the condition, so a state change races a timeout or another state change of
 * the same member at most once.
 */
export function memberUpdate(
  base: PatchBase,
  /** `member`: the writer in its new state (omitted when the state does not change). */
  change: { readonly member?: StoredMember; readonly custom?: Record<string, unknown> },
): UpdateSpec {
  const parts = baseParts(base);
  const m = change.member;
  if (m !== undefined) {
    Object.assign(parts.values, { ':s': m.s, ':newT': m.t });
    parts.set.push('#members.#a.s = :s', '#members.#a.t = :newT');
    if (m.e === undefined) {
      parts.remove.push('#members.#a.e');
    } else {
      parts.values[':e'] = m.e;
      parts.set.push('#members.#a.e = :e');
    }
    parts.remove.push('#members.#a.p', '#members.#a.b');
  }
  if (change.custom !== undefined) {
    parts.values[':q'] = change.custom;
    parts.set.push('#members.#a.q = :q');
  }
  return toSpec(parts);
}
