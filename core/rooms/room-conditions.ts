import { absent, allOf, anyOf, equals, exists, oneOf, type Condition } from './room-expression';

/** Anyone may join: no joinability stored (rooms made before sessions), or `open`. */
const joinabilityOpen = anyOf(absent('properties', 'joinability'), equals(['properties', 'joinability'], 'open'));

/**
 * Every condition a write to a room item may hold, by name, each defined once. The DynamoDB
 * store compiles them into its ConditionExpression; the in-memory store evaluates the same
 * definitions on its stored item (core/rooms/room-expression.ts).
 */
export const roomConditions = {
  /** The room item is there: an UpdateItem would otherwise create a stray item. */
  roomExists: exists('pk'),
  /** Spawning or ready: it can still be joined, made ready, failed or heard from. */
  roomIsLive: oneOf(['state'], ['spawning', 'ready']),
  roomIsSpawning: equals(['state'], 'spawning'),
  roomIsReady: equals(['state'], 'ready'),
  /** A spawning room past its deadline is failed by whoever sees it, never made ready. */
  spawnDeadlineAhead: (now: Date): Condition => ({
    kind: 'compare',
    op: '>',
    path: ['spawnDeadline'],
    to: { value: now.toISOString() },
  }),
  /** No write touched the room since the read that judged it (its change number then). */
  unchangedSince: (changeNumber: number): Condition => equals(['changeNumber'], changeNumber),
  /** A free slot: fewer players than the room holds (`players` counts every stored member). */
  hasFreeSlot: { kind: 'compare', op: '<', path: ['players'], to: { path: ['maxPlayers'] } } as Condition,
  /** Fewer players than `cap` (a claim that frees slots in the same write counts them in). */
  playersBelow: (cap: number): Condition => ({ kind: 'compare', op: '<', path: ['players'], to: { value: cap } }),
  /** At least `n` players: a write removing `n` members never takes the count below zero. */
  playersAtLeast: (n: number): Condition => ({ kind: 'compare', op: '>=', path: ['players'], to: { value: n } }),
  memberAbsent: (account: string): Condition => absent('members', account),
  /** The member has no stored expiry, or it lies after `now` (epoch ms). */
  memberNotExpired: (account: string, now: number): Condition =>
    anyOf(absent('members', account, 'e'), {
      kind: 'compare',
      op: '>',
      path: ['members', account, 'e'],
      to: { value: now },
    }),
  /** The member is still in the state it was read in (its state clock `t` is unchanged). */
  memberUnchanged: (account: string, t: number): Condition => equals(['members', account, 't'], t),
  /** The member still holds the key the caller presents (its stored hash). */
  keyMatches: (account: string, keyHash: string): Condition => equals(['members', account, 'k'], keyHash),
  memberHoldsNoKey: (account: string): Condition => absent('members', account, 'k'),
  /** No request has used the member's current key (keys are single use). */
  keyUnused: (account: string): Condition => absent('members', account, 'u'),
  /** The member's current key was used by exactly this request. */
  keyUsedBy: (account: string, requestId: string): Condition => equals(['members', account, 'u'], requestId),
  /** The tombstone of this key hash is still in `gone`. */
  tombstoneStored: (keyHash: string): Condition => exists('gone', keyHash),
  /** `gone` holds at most `n` tombstones. */
  tombstonesAtMost: (n: number): Condition => ({ kind: 'sizeAtMost', path: ['gone'], max: n }),
  /** A standby server's room: nobody's yet, to be handed over to one create. */
  roomIsStandby: equals(['standby'], true),
  /** Not listed in gsi1 (a standby room of the previous release, started before the standby index). */
  notInGsi1: absent('gsi1pk'),
  /**
   * Spawning rooms have no server to hear from yet; a ready room without a heartbeat is no
   * evidence; otherwise the last heartbeat is at or after `since` (ISO).
   */
  serverHeardFrom: (since: string): Condition =>
    anyOf(equals(['state'], 'spawning'), absent('lastHeartbeatAt'), {
      kind: 'compare',
      op: '>=',
      path: ['lastHeartbeatAt'],
      to: { value: since },
    }),
  joinabilityOpen,
  /**
   * The session takes this write's join: anyone while `open`; while `inviteOnly`, only a write
   * that adds no newcomer (an invited account holds its member already: the join re-keys it)
   * and only if every held seat is an invited member (`i`) whose fixed expiry lies after `now`
   * (epoch ms), so an invite that ran out admits nobody even while its entry is still stored.
   * A write adding a newcomer is held to `open` alone: no per-account check for those.
   */
  joinabilityAdmits: (
    seats: { readonly held: readonly string[]; readonly addsNewcomer: boolean },
    now: number,
  ): Condition =>
    seats.addsNewcomer
      ? joinabilityOpen
      : anyOf(
          joinabilityOpen,
          allOf(
            equals(['properties', 'joinability'], 'inviteOnly'),
            ...seats.held.flatMap((account): Condition[] => [
              exists('members', account, 'i'),
              { kind: 'compare', op: '>', path: ['members', account, 'e'], to: { value: now } },
            ]),
          ),
        ),
  /** Whether the room stores a `properties` map (rooms made before sessions do not). */
  propertiesStored: exists('properties'),
  propertiesAbsent: absent('properties'),
  /** The room's arbiter is still of epoch `epoch` (the fencing token every arbiter write carries). */
  hostEpochIs: (epoch: number): Condition => equals(['host', 'e'], epoch),
  /** The room's arbiter is this member (a dedicated room's server has no `host.a`). */
  hostIs: (account: string): Condition => equals(['host', 'a'], account),
  /**
   * A client of build `hash` may join (docs/versions.md): the room's server reported no build
   * (or has not yet: a spawning room), the room was made with the check off, or the same build.
   */
  protocolAccepts: (hash: string): Condition =>
    anyOf(absent('protocol'), exists('protocolCheck'), equals(['protocol', 'h'], hash)),
  /**
   * The room's settings still hold every criterion, each compared whole (maps, lists, numbers,
   * strings as DynamoDB compares them): a room whose server changed its settings since a
   * matchmaker read it is not joined. No criteria: the room exists (an empty `AND` compiles to
   * nothing DynamoDB accepts).
   */
  settingsMatch: (criteria: Readonly<Record<string, unknown>>): Condition => {
    const each = Object.entries(criteria).map(([key, value]) => equals(['settings', key], value));
    return each.length === 0 ? exists('pk') : allOf(...each);
  },
  /** The arbiter was last heard from before `before` (epoch ms): silent since then. */
  hostSilentBefore: (before: number): Condition => ({
    kind: 'compare',
    op: '<',
    path: ['host', 's'],
    to: { value: before },
  }),
} as const;

/**
 * An expired member, removed by a write only while it is exactly as it was read: same state
 * clock, same key if it held one, and, if it was disconnected (`d`), not heard from since.
 */
export function memberAsRead(member: {
  account: string;
  member: { t: number; d?: number };
  keyHash?: string;
}): Condition {
  const unchanged = roomConditions.memberUnchanged(member.account, member.member.t);
  const key = member.keyHash === undefined ? [] : [roomConditions.keyMatches(member.account, member.keyHash)];
  const disconnected = member.member.d === undefined ? [] : [equals(['members', member.account, 'd'], member.member.d)];
  return key.length + disconnected.length === 0 ? unchanged : allOf(unchanged, ...key, ...disconnected);
}
