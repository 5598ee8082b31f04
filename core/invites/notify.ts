import { childLogger } from '../infra/logger';
import type { ConnectionSender } from '../live/connection-sender';
import type { LiveSubscriptions } from '../live/subscription-store';

export interface InviteNoticeDependencies {
  readonly sockets: Pick<LiveSubscriptions, 'socketsOf' | 'forgetConnection'>;
  readonly sender: ConnectionSender;
}

const log = childLogger('invites');

/**
 * Tells each invited account on each of its open sockets (its `LIVE` item): `{ type: 'invite',
 * roomId, invitedBy, expiresAt }`. A gone connection is forgotten, as the fanout does. Best
 * effort: the invite is written already and `GET /v1/me/invites` shows it; a failed send is
 * logged and never fails the invite.
 */
export async function tellInvited(
  invite: { readonly roomId: string; readonly invitedBy: string; readonly expiresAt: number },
  accounts: readonly string[],
  deps: InviteNoticeDependencies,
): Promise<void> {
  const frame = {
    type: 'invite',
    roomId: invite.roomId,
    invitedBy: invite.invitedBy,
    expiresAt: new Date(invite.expiresAt).toISOString(),
  } as const;
  const tell = async (connectionId: string) => {
    if ((await deps.sender.send(connectionId, frame)) === 'gone') await deps.sockets.forgetConnection(connectionId);
  };
  await Promise.all(
    accounts.map(async (account) => {
      try {
        await Promise.all((await deps.sockets.socketsOf(account)).map(tell));
      } catch (error) {
        log.warn('invite notice not delivered', { roomId: invite.roomId, account, error: error as Error });
      }
    }),
  );
}
