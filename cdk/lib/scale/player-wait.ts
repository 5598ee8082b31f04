/** What decides how long a player's join waits and how often it reads the room meanwhile. */
export interface SpawnWaitTiming {
  /** How long a create, or a join of a spawning room, holds its function for `inited` (`CREATE_WAIT_S`). */
  readonly createWaitS: number;
  /** The 202's `Retry-After`: how often a client reads a spawning room (`SPAWN_POLL_AFTER_S`). */
  readonly spawnPollAfterS: number;
}

/** What a player's join costs the API while the room starts, averaged over the room's players. */
export interface PlayerWait {
  /** Seconds the join's function is held waiting for `inited` (at most `createWaitS`). */
  readonly holdS: number;
  /** `GET /v1/rooms/{roomId}` calls after a 202, until one reads the room ready. */
  readonly polls: number;
}

/**
 * Players of one room arrive one after another at `joinsPerSecond` (one matchmaking bucket
 * fills one room at a time); the first one's join starts the server. A join that lands while
 * the room starts holds its function up to `createWaitS`, then answers 202, and the player
 * reads the room every `spawnPollAfterS` until a read finds it ready. A join after that finds
 * it ready: no hold, no poll. The scale envelope and the cost model both count API requests
 * with it, so the two cannot disagree on what a session asks of the API.
 */
export function playerWait(
  timing: SpawnWaitTiming,
  room: { readonly playersPerRoom: number; readonly serverStartS: number },
  joinsPerSecond: number,
): PlayerWait {
  if (joinsPerSecond <= 0) return { holdS: 0, polls: 0 };
  let holdS = 0;
  let polls = 0;
  for (let i = 0; i < room.playersPerRoom; i++) {
    const untilReady = room.serverStartS - i / joinsPerSecond;
    if (untilReady <= 0) continue;
    const hold = Math.min(timing.createWaitS, untilReady);
    holdS += hold;
    polls += Math.ceil((untilReady - hold) / timing.spawnPollAfterS);
  }
  return { holdS: holdS / room.playersPerRoom, polls: polls / room.playersPerRoom };
}
