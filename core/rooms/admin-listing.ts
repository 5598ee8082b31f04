import type { LiveRoomPage, LiveRoomPages } from './live-room-store';
import type { Room } from './model';

/** What an operator narrows the live rooms to (`GET /v1/admin/rooms`); every field given must match. */
export interface AdminRoomFilter {
  readonly gameId?: string;
  readonly version?: string;
  readonly region?: string;
  readonly state?: 'spawning' | 'ready';
  /** The template the session was made from (rooms of a configuration's default template have none). */
  readonly template?: string;
}

/**
 * Whether the operators' listing shows `room`: a live room matching every given field. A
 * warm-pool server waiting for a create is nobody's room yet: the pool's own view lists it
 * (`GET /v1/admin/pool`), this listing does not. Pure.
 */
export function listedForAdmins(room: Room, filter: AdminRoomFilter): boolean {
  if (room.standby) return false;
  if (filter.state !== undefined && room.state !== filter.state) return false;
  if (filter.gameId !== undefined && room.gameId !== filter.gameId) return false;
  if (filter.version !== undefined && room.version !== filter.version) return false;
  if (filter.region !== undefined && room.region !== filter.region) return false;
  return filter.template === undefined || room.template === filter.template;
}

/**
 * A page of the live rooms of every game, filtered after the read: the page's cost is the
 * index entries it read (`limit`), not the rooms it shows, so a narrow filter gives short
 * (even empty) pages with a token rather than one call that reads the whole index.
 */
export async function listLiveRooms(
  pages: LiveRoomPages,
  filter: AdminRoomFilter,
  pageToken: string | undefined,
  limit: number,
): Promise<LiveRoomPage> {
  const page = await pages.page(pageToken, limit);
  const rooms = page.rooms.filter((room) => listedForAdmins(room, filter));
  return page.nextToken === undefined ? { rooms } : { rooms, nextToken: page.nextToken };
}
