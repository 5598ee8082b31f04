/**
 * What a deployed function needs besides its table and the token settings, declared beside
 * its entry (lambdas/http/routes.ts, core/infra/queues.ts) so the stack grants each route and
 * consumer from the same table that defines it, and a new route cannot be deployed without
 * what its handler uses (test/cdk/function-needs.test.ts derives the needs from the code).
 *
 * - `spawn`: starts game servers (and stops one that misses its deadline): the ECS settings,
 *   RunTask/StopTask, the controller queue URL, the room region, sidecar credentials, and the
 *   sidecar envelope key their secrets are sealed under.
 * - `signTokens`: reads the platform's signing key: minting game server or joined-player
 *   tokens, the sidecar channel keys, and `Idempotency-Key` records (their key is derived
 *   from it).
 * - `stopServers`: stops game server tasks (a session that ended empty): StopTask and the
 *   ECS settings. `spawn` includes it.
 * - `sidecarCredentials`: issues room-scoped sessions of the sidecar role.
 * - `sendCommands`: puts owners' commands and the platform's notices (a refused build) on a
 *   room's reply queue (GetQueueUrl and SendMessage on the reply queues). They are sealed
 *   with the room's channel key: declare `signTokens` too.
 * - `takeStandby`: hands a warm-pool server its room: `assign` on its reply queue as
 *   `sendCommands` does, and the answer received from its assign queue (ReceiveMessage on the
 *   queues named `<reply prefix>*-assign`). Declare `signTokens` too.
 * - `postToSockets`: sends frames to live-session sockets (taps, answers, invites):
 *   ManageConnections on the live WebSocket API's stage and its endpoint in `LIVE_ENDPOINT`.
 *   Bound by the stack once the live API exists (cdk/lib/constructs/live-api.ts).
 * - `inspectQueues`: reads the platform's queues for operators (core/infra/queue-admin.ts): their
 *   URLs, GetQueueAttributes on each queue and its dead-letter queue, ReceiveMessage on the
 *   dead-letter queues only (a peek at the oldest), and CloudWatch GetMetricData for ages.
 * - `redriveQueues`: moves dead-lettered messages back: ReceiveMessage, DeleteMessage and
 *   GetQueueAttributes on the dead-letter queues, SendMessage on their source queues.
 */
export type FunctionNeed =
  | 'spawn'
  | 'stopServers'
  | 'signTokens'
  | 'sidecarCredentials'
  | 'sendCommands'
  | 'takeStandby'
  | 'postToSockets'
  | 'inspectQueues'
  | 'redriveQueues';
