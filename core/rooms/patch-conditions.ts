import { memberAsRead, roomConditions as is } from './room-conditions';
import { allOf, mergeChanges, type Change, type Condition } from './room-expression';
import type { RoomWrite } from './room-store';
import type { DocMember, StoredMember } from './document';
import { maxReclaimPerWrite } from './join-conditions';
import type { SessionJoinability } from './session-model';
import { hostWriteOf } from './host';

/**
 * The session PATCH routes as ONE conditional write each (core/rooms/room-store.ts adds the
 * change number and `updatedAt`). Pure: the store sends what these build, the tests pin them.
 *
 * Every write also removes the other members whose time ran out (lazy expiry on every
 * write), each on condition it is still as it was read.
 */
export interface PatchBase {
  /** The writer: a member who was live when read, with this state clock. */
  readonly account: string;
  readonly memberT: number;
  /** `If-Match`: the write holds only while the change number is still this one. */
  readonly ifMatch?: number;
  /**
   * The writer is the room's host at this epoch (as read, or as its `X-Host-Epoch` named): the
   * write holds only while it still is, and is its sign of life (core/rooms/host.ts `hostWriteOf`).
   */
  readonly hostEpoch?: number;
  /** Other members whose time ran out, as read (at most `maxReclaimPerWrite` are removed). */
  readonly expired: readonly DocMember[];
  readonly now: Date;
}

/**
 *   IF memberUnchanged(writer) AND unchangedSince(If-Match) AND each removed member as read
 *      AND hostEpochIs(e) AND hostIs(writer)   (the host's writes: SET host.s = now REMOVE host.r)
 */
function baseWrite(base: PatchBase): { conditions: Condition[]; change: Change } {
  const host = base.hostEpoch === undefined ? undefined : hostWriteOf(base.account, base.hostEpoch, base.now);
  const conditions = [
    is.memberUnchanged(base.account, base.memberT),
    ...(base.ifMatch === undefined ? [] : [is.unchangedSince(base.ifMatch)]),
    ...(host ? [host.condition] : []),
  ];
  const others = base.expired.filter((x) => x.account !== base.account).slice(0, maxReclaimPerWrite);
  if (others.length === 0) return { conditions, change: host?.change ?? {} };
  return {
    conditions: [...conditions, ...others.map(memberAsRead)],
    change: mergeChanges(
      { add: [[['players'], -others.length]], remove: others.map((x) => ['members', x.account]) },
      host?.change ?? {},
    ),
  };
}

const writeOf = (base: PatchBase, conditions: Condition[], ...changes: Change[]): RoomWrite => ({
  condition: allOf(...conditions),
  change: mergeChanges(...changes),
  now: base.now,
});

/**
 * `PATCH /v1/rooms/{roomId}`: the fields given, each written alone, so two members writing
 * different fields without `If-Match` never undo each other. A room stored without a
 * `properties` map (made before sessions) gets the whole map, once.
 *
 *   IF base AND propertiesStored | propertiesAbsent (as read)
 */
export function roomPropertiesUpdate(
  base: PatchBase,
  change: { readonly joinability?: SessionJoinability; readonly custom?: Record<string, unknown> },
  propertiesStored: boolean,
): RoomWrite {
  const { conditions, change: removals } = baseWrite(base);
  if (!propertiesStored) {
    const properties = { joinability: change.joinability ?? 'open', custom: change.custom ?? {} };
    return writeOf(base, [...conditions, is.propertiesAbsent], removals, { set: [[['properties'], properties]] });
  }
  const fields: Change = {
    set: [
      ...(change.joinability === undefined ? [] : [[['properties', 'joinability'], change.joinability] as const]),
      ...(change.custom === undefined ? [] : [[['properties', 'custom'], change.custom] as const]),
    ],
  };
  return writeOf(base, [...conditions, is.propertiesStored], removals, fields);
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
): RoomWrite {
  const { conditions, change: removals } = baseWrite(base);
  const at = (field: string) => ['members', base.account, field];
  const m = change.member;
  const state: Change =
    m === undefined
      ? {}
      : {
          set: [[at('s'), m.s], [at('t'), m.t], ...(m.e === undefined ? [] : [[at('e'), m.e] as const])],
          // A state the member names itself also ends a disconnect (`d`): it says where it is.
          remove: [...(m.e === undefined ? [at('e')] : []), at('p'), at('b'), at('d')],
        };
  const custom: Change = change.custom === undefined ? {} : { set: [[at('q'), change.custom]] };
  return writeOf(base, conditions, removals, state, custom);
}
