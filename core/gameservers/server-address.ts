import type { Room } from '../rooms/model';

/**
 * What a placement's `host` says before the address players reach is known (an ECS task's
 * public IP is only assigned once its network interface is attached, after RunTask returns).
 */
export const unknownHost = 'pending';

/** The host if players can connect to it, else undefined (absent, empty, or `pending`). */
export function knownHost(host: string | undefined): string | undefined {
  return host !== undefined && host !== '' && host !== unknownHost ? host : undefined;
}

/**
 * The address players connect to: the one learnt when the room became ready, or for rooms
 * whose spawner knew it at once (the local fleet), the placement's.
 */
export function playerAddress(room: Pick<Room, 'address' | 'placement'>): string | undefined {
  return knownHost(room.address) ?? knownHost(room.placement?.host);
}

/**
 * Finds the address players reach for a room whose spawner did not know it at spawn time
 * (deployed: the ECS task's public IPv4). Undefined while it is not known yet.
 */
export type ServerLocator = (room: Pick<Room, 'roomId' | 'placement'>) => Promise<string | undefined>;

/**
 * The rule of `inited`: a spawning room becomes ready to players only together with an
 * address they can reach. Without one, `inited` is answered "try again" while the spawn
 * deadline runs, and a room that never gets one times out like any other spawn.
 */
export function readinessOf(
  room: Pick<Room, 'address' | 'placement' | 'spawnDeadline'>,
  located: string | undefined,
  now: Date,
): { readonly ready: true; readonly address: string } | { readonly ready: false; readonly retry: boolean } {
  const address = playerAddress(room) ?? knownHost(located);
  if (address) return { ready: true, address };
  return { ready: false, retry: now.getTime() < Date.parse(room.spawnDeadline) };
}
