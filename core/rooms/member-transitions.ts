import { RequestInvalidError } from '../errors';
import { memberStateCode, memberStateOf, timeoutOf, type StoredMember } from './document';
import type { MemberSettableState, MemberState, SessionTimeouts } from './session-model';

/**
 * Which state changes a member may make itself (`PATCH /v1/rooms/{roomId}/members/me`):
 *
 * | from       | to         | dedicated room                  | peer-hosted session |
 * | ---------- | ---------- | ------------------------------- | ------------------- |
 * | `reserved` | `ready`    | yes                             | yes                 |
 * | `reserved` | `active`   | no: the game server's `joined`  | yes                 |
 * | `ready`    | `active`   | no: the game server's `joined`  | yes                 |
 * | `active`   | `inactive` | yes                             | yes                 |
 * | `inactive` | `active`   | yes (it was connected before)   | yes                 |
 * | same state | same state | yes: nothing changes, its clock keeps running | yes   |
 *
 * Anything else (back to `ready`, `reserved`/`ready` → `inactive`) is refused: timeouts only
 * ever remove a member, so one write makes at most one transition per member.
 */
export type Hosting = 'dedicated' | 'peerHosted';

export function selfTransitionAllowed(from: MemberState, to: MemberSettableState, hosting: Hosting): boolean {
  if (from === to) return true;
  switch (to) {
    case 'ready':
      return from === 'reserved';
    case 'active':
      return from === 'inactive' || (hosting === 'peerHosted' && (from === 'reserved' || from === 'ready'));
    case 'inactive':
      return from === 'active';
  }
}

/** An illegal self-transition: the caller's mistake about its own state, a 400 naming `body.state`. */
export class MemberTransitionInvalidError extends RequestInvalidError {
  constructor(from: MemberState, to: MemberSettableState, hosting: Hosting) {
    const why =
      to === 'active' && hosting === 'dedicated' && from !== 'inactive'
        ? 'in a dedicated room the game server makes a member active when it connects (joined)'
        : `a member goes reserved → ready → active ⇄ inactive`;
    super(`A member cannot go from ${from} to ${to}: ${why}.`, [
      { field: 'body.state', message: `cannot go from ${from} to ${to}` },
    ]);
  }
}

/**
 * The member after moving itself to `to` at `now`: its state clock restarts and the new
 * state's timeout becomes its expiry. What `joined` recorded (the used key `u`, `a`) and its
 * scopes and properties stay; the pre-confirmation copy `b` and a pending timeout `p` go.
 * Moving to the state it is in changes nothing (its timeout keeps running).
 *
 * @throws MemberTransitionInvalidError
 */
export function transitionMember(
  member: StoredMember,
  to: MemberSettableState,
  now: number,
  timeouts: SessionTimeouts,
  hosting: Hosting,
): StoredMember {
  const from = memberStateOf(member.s);
  if (!selfTransitionAllowed(from, to, hosting)) throw new MemberTransitionInvalidError(from, to, hosting);
  if (from === to) return member;
  const { e: _e, p: _p, b: _b, ...kept } = member;
  const timeout = timeoutOf(to, timeouts);
  return { ...kept, s: memberStateCode(to), t: now, ...(timeout === null ? {} : { e: now + timeout }) };
}
