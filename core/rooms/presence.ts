import { memberStateCode } from './document';
import { roomConditions as is } from './room-conditions';
import { absent, allOf, equals, exists } from './room-expression';
import type { RoomWrite } from './room-store';

/**
 * A member's sockets as its presence (peer-hosted sessions whose template sets
 * `disconnectedMs`): the live socket side (lambdas/live/socket.ts) tells the room store when
 * an account's last socket to a room closed and when one is heard again; the rule that makes
 * a disconnected member inactive is lazy (core/rooms/document.ts `memberAt`), so nothing has
 * to run when `disconnectedMs` passes. Pure: the store sends what these build.
 */

const memberPath = (account: string, field: string) => ['members', account, field];

/**
 * The account's last socket to the room closed at `now`: an active member of a live room
 * whose template makes sockets presence records when (`d`). The first close counts: a member
 * already disconnected keeps its earlier instant, so the timeout is not pushed back.
 *
 *   IF roomIsLive AND constants.timeouts.disconnectedMs exists AND members.<a>.s = active AND members.<a>.d absent
 */
export function socketLostWrite(account: string, now: Date): RoomWrite {
  return {
    condition: allOf(
      is.roomIsLive,
      // Written only when a number (core/templates/template.ts): absent means sockets are not presence.
      exists('constants', 'timeouts', 'disconnectedMs'),
      equals(memberPath(account, 's'), memberStateCode('active')),
      absent('members', account, 'd'),
    ),
    change: { set: [[memberPath(account, 'd'), now.getTime()]] },
    now,
  };
}

/**
 * A socket of the account is heard (a subscribe, a ping): a disconnect it recorded is over.
 * A member already seen inactive by then stays as stored (active): being back makes it active.
 *
 *   IF members.<a>.d exists
 */
export function socketBackWrite(account: string, now: Date): RoomWrite {
  return {
    condition: allOf(is.roomIsLive, exists('members', account, 'd')),
    change: { remove: [memberPath(account, 'd')] },
    now,
  };
}
