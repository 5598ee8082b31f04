import type { Placement } from './game-server';

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
export function playerAddress(room: {
  readonly address?: string | undefined;
  readonly placement?: Placement | undefined;
}): string | undefined {
  return knownHost(room.address) ?? knownHost(room.placement?.host);
}

/**
 * Finds the address players reach for a room whose spawner did not know it at spawn time
 * (deployed: the ECS task's public IPv4). Undefined while it is not known yet.
 */
export type ServerLocator = (room: {
  readonly roomId: string;
  readonly placement?: Placement | undefined;
}) => Promise<string | undefined>;

/**
 * Asks `locate` again after each of `pausesMs` while it knows no address (a failure is not
 * asked again: it goes back to the caller). An `inited` whose address is not readable yet is
 * otherwise handed back to the queue and redelivered only after the queue's visibility timeout
 * (60 s); two seconds' patience here covers the short lag between a task running and its
 * ENI's public IP.
 */
export function patientLocator(
  locate: ServerLocator,
  pausesMs: readonly number[],
  sleep: (ms: number) => Promise<void>,
): ServerLocator {
  return async (room) => {
    let found = await locate(room);
    for (const pause of pausesMs) {
      if (found !== undefined) break;
      await sleep(pause);
      found = await locate(room);
    }
    return found;
  };
}

/**
 * Three lookups in 2 s, well inside the controller consumer's 10 s timeout: each lookup is two
 * calls against account-wide read buckets, so a retry in place is worth it only for the lag above.
 */
export const locatePausesMs = [500, 1_500] as const;
