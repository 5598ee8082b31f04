import type { Room } from '../rooms/model';

/**
 * What never changes about a room once seen, kept in-process so a join needs no read: the
 * constants (game, version, region, maxPlayers, template, timeouts, serverScopes), and once
 * the room is ready, what `inited` and the spawner fixed for good (settings, placement,
 * readyAt when it has one). Mutable fields (state, players, changeNumber) come back from the join's own
 * write (`UPDATED_NEW`). Bounded; the oldest entry goes first.
 */
export class RoomConstantsCache {
  private readonly rooms = new Map<string, Room>();

  constructor(private readonly capacity = 10_000) {}

  get(roomId: string): Room | undefined {
    return this.rooms.get(roomId);
  }

  /** Whether the entry already holds what a ready room's answer needs. */
  static settled(room: Room): boolean {
    // A peer-hosted session never gets a placement: it is settled once it exists.
    return room.state !== 'spawning' && (room.placement !== undefined || room.hosting === 'peerHosted');
  }

  remember(room: Room): void {
    this.rooms.delete(room.roomId);
    this.rooms.set(room.roomId, room);
    if (this.rooms.size > this.capacity) this.rooms.delete(this.rooms.keys().next().value as string);
  }

  forget(roomId: string): void {
    this.rooms.delete(roomId);
  }
}

/** One per process (a Lambda instance, the local cloud), shared by every join handler in it. */
export const roomConstants = new RoomConstantsCache();
