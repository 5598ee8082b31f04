import { keys } from '../../../core/infra/keys';
import type { InviteBook, InviteStore, StoredInvite } from '../../../core/invites/invite-store';
import type { Item } from '../../../core/rooms/room-expression';
import { otherItemKey } from './rooms';

/**
 * The invites items in the Map the in-memory room store's transactions write
 * (`memoryRoomStore(options, others)`): an invite's entry is written there by the room store,
 * with the room's own write, exactly as on the table.
 */
export class MemoryInviteStore implements InviteStore {
  constructor(readonly others: Map<string, Item> = new Map()) {}

  async read(account: string): Promise<InviteBook> {
    const item = this.others.get(otherItemKey(keys.accountInvites(account)));
    if (!item) return { account, exists: false, invites: {} };
    return { account, exists: true, invites: structuredClone(item.invites as Record<string, StoredInvite>) };
  }

  async remove(account: string, roomId: string): Promise<void> {
    const item = this.others.get(otherItemKey(keys.accountInvites(account)));
    delete (item?.invites as Record<string, StoredInvite> | undefined)?.[roomId];
  }
}
