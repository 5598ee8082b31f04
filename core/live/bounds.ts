/**
 * The live-session socket's bounds (docs/live.md). The lifetimes are API Gateway WebSocket
 * API's own: a connection lasts at most 2 hours and ends after 10 minutes without a frame
 * (https://docs.aws.amazon.com/apigateway/latest/developerguide/apigateway-execution-service-websocket-limits-table.html:
 * "Connection duration for WebSocket API", "Idle Connection Timeout", "WebSocket frame size").
 * The local gateway applies the same; the counts are the platform's.
 */
export const connectionBounds = {
  /** Sockets one account may hold at once (devices, tabs): a leaked client cannot hold hundreds. */
  perAccount: 5,
  /** Rooms one socket may subscribe to: a client rarely follows more than a handful of sessions. */
  subscriptionsPerConnection: 10,
  maxLifetimeMs: 2 * 60 * 60 * 1000,
  idleMs: 10 * 60 * 1000,
  /** A client frame larger than this closes the socket (code 1009), as API Gateway does. */
  maxFrameBytes: 32 * 1024,
} as const;

/**
 * An account's sockets at `now` (epoch ms), by connection id → connected at: which entries
 * are certainly closed (older than the longest life, whatever their `$disconnect` did) and
 * how many may still be open.
 */
export function liveSocketsAfterPrune(
  conns: Readonly<Record<string, number>>,
  now: number,
): { readonly live: number; readonly stale: string[] } {
  const stale = Object.entries(conns)
    .filter(([, connectedAt]) => connectedAt <= now - connectionBounds.maxLifetimeMs)
    .map(([id]) => id);
  return { live: Object.keys(conns).length - stale.length, stale };
}
