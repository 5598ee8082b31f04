import { liveInvites } from '../../../core/invites/invite-store';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/**
 * `GET /v1/me/invites`: the caller's invites whose expiry lies ahead (one read of its invites
 * item). An accepted invite stays listed until it expires; a declined one is gone.
 */
export const handler = httpHandler({ auth: {} }, async ({ principal }) => {
  const p = platform();
  const book = await p.invites.read(principal.account);
  return { status: 200, body: { invites: liveInvites(book, p.now().getTime()) } };
});
