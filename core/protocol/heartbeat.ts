/**
 * How often a sidecar reports (`heartbeat`) and how long a ready room may stay silent before
 * it counts as dead. The timeout spans five intervals, so a few lost or late heartbeats
 * never kill a healthy room, and a dead one stops taking joins within 10 s.
 */
export const heartbeatDefaults = { intervalS: 2, timeoutS: 10 } as const;

/**
 * The timeout that goes with an interval: five of them, never under the default's 10 s. A
 * deployment that spaces heartbeats out (docs/scale.md) must give rooms as many intervals of
 * silence as the default does, or a late heartbeat or two would fail healthy rooms.
 */
export function heartbeatTimeoutFor(intervalS: number): number {
  return Math.max(heartbeatDefaults.timeoutS, 5 * intervalS);
}

/**
 * The shortest timeout, in intervals, the heartbeat evidence rules work with
 * (core/rooms/heartbeat-evidence.ts): under two, one late heartbeat already reads as a
 * silent room.
 */
export const minHeartbeatTimeoutIntervals = 2;
