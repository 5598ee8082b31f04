/**
 * How often a sidecar reports (`heartbeat`) and how long a ready room may stay silent before
 * it counts as dead. The timeout spans five intervals, so a few lost or late heartbeats
 * never kill a healthy room, and a dead one stops taking joins within 10 s.
 */
export const heartbeatDefaults = { intervalS: 2, timeoutS: 10 } as const;
