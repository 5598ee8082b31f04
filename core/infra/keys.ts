/**
 * Every key of the single table is built here, so the item layout can be read in one place.
 *
 * | item                   | pk                     | sk                 |
 * | ---------------------- | ---------------------- | ------------------ |
 * | room = session document | ROOM#<roomId>          | ROOM               |  (members and keys inside: core/rooms/document.ts)
 * | game configuration     | GAME#<gameId>          | VERSION#<version>  |
 * | session template       | TEMPLATE#<name>        | TEMPLATE           |
 * | filling-room pointer   | BUCKET#<bucketHash>    | FILLING            |
 * | account ban            | ACCOUNT#<account>      | BAN                |
 * | account's gate         | ACCOUNT#<account>      | GATE#<action>      |  (rate-limit log + mirrored ban: core/abuse/rate-limit-store.ts)
 * | idempotency record     | ACCOUNT#<account>      | IDEMPOTENCY#<sha256(key)> |
 * | owner's command        | ROOM#<roomId>          | COMMAND#<commandId> |  (core/commands/store.ts)
 * | large session's member | ROOM#<roomId>          | MEMBER#<account>   |  { account, m: StoredMember, x?: expiry ms, ttl? }: a `large` session's members, its item counts them (core/rooms/large-members.ts)
 * | room's message counter | ROOM#<roomId>          | MESSAGES           |
 * | room's message         | ROOM#<roomId>          | MESSAGE#<seq, 16 digits> |
 * | sweeper's memory       | SWEEPER                | STATE              |
 * | heartbeat pipeline     | SWEEPER                | PIPELINE           |  (what the consumers report: core/rooms/sweeper-state-store.ts)
 * | running servers, total | SERVERS                | COUNT#*            |
 * | … of a configuration   | SERVERS                | COUNT#<gameId>#<version> |
 * | a room's server lease  | SERVERS                | ROOM#<roomId>      |
 * | region                 | FLEET                  | REGION#<name>      |  (regions and hosts in one partition: one Query reads the fleet)
 * | host                   | FLEET                  | HOST#<hostId>      |
 * | warm pool              | POOL#<gameId>#<version> | REGION#<region>    |  (its standby servers and their states: core/pool/pool-store.ts; one Query reads every region's)
 * | pooled configuration   | POOLS                  | <gameId>#<version> |
 * | table upgrade's marker | UPGRADE                | MIGRATION#<name>   |  (how far this release's one-time pass got: core/upgrade/table-upgrade.ts)
 * | live socket            | CONN#<connectionId>    | CONN               |  { account, admin, connectedAt, subs: { roomId: subscribedAt }, ttl } (core/live/subscription-store.ts)
 * | socket's subscription  | ROOM#<roomId>          | SUB#<connectionId> |  { connectionId, roomId, account, admin, minTapIntervalMs, since, ttl }: one Query reads a room's subscribers
 * | account's sockets      | ACCOUNT#<account>      | LIVE               |  { conns: { connectionId: connectedAt } }: the per-account socket bound's conditional write
 * | account's invites      | ACCOUNT#<account>      | INVITES            |  { invites: { roomId: { by, exp } }, ttl }: invites received, at most 20 live (core/invites/invite-store.ts)
 * | a build's components   | PROTOCOL#<set hash>    | COMPONENTS         |  { components: { name: hash } }: written once per hash, never changed (core/versions/protocol-store.ts)
 * | spawn/kill history     | HISTORY#<yyyy-mm-dd>#<0..7> | <iso at>#<roomId>#<changeNumber> |  a room's state or server change, written by the table stream's consumer, ttl 7 days (core/rooms/history-store.ts)
 *
 * Index keys of a live room (written at create, REMOVEd by the write that fails or closes it):
 *
 * | index | pk                                   | sk                    | for                     |
 * | ----- | ------------------------------------ | --------------------- | ----------------------- |
 * | gsi1  | OPEN#<bucket>                        | <createdAt>#<roomId>  | matchmaking (packing)   |
 * | gsi1  | STANDBY#<gameId>#<version>           | <region>#<roomId>     | the warm pool's servers |
 * | gsi2  | LIVE#<gameId>#<version>#<region>     | <createdAt>#<roomId>  | `GET /v1/rooms`         |
 * | gsi3  | SWEEP#<0..liveRoomShards-1>          | <roomId>              | the sweeper, reconciling, `GET /v1/admin/rooms` |
 *
 * Catalog index keys (gsi3, keys only; written with the item by its store, deleted with it):
 *
 * | item                | gsi3pk           | gsi3sk              | for                       |
 * | ------------------- | ---------------- | ------------------- | ------------------------- |
 * | game configuration  | CATALOG#GAME     | <gameId>#<version>  | `GET /v1/admin/games`     |
 * | session template    | CATALOG#TEMPLATE | <name>              | `GET /v1/admin/templates` |
 *
 * Each reader of gsi3 queries only its own partitions by key (the sweeper `SWEEP#<n>`, the
 * catalog listings `CATALOG#…`), so the partitions never show up in one another's reads.
 */
export interface ItemKey {
  readonly pk: string;
  readonly sk: string;
}

const roomPk = (roomId: string) => `ROOM#${roomId}`;

/** Index partitions: which live rooms a lookup may offer. */
const indexPartitions = {
  /** gsi1: live rooms of one matchmaking bucket. */
  bucket: (bucket: string) => `OPEN#${bucket}`,
  /** gsi1: the standby servers of one configuration, every region's (rooms that are nobody's yet). */
  standby: (gameId: string, version: string) => `STANDBY#${gameId}#${version}`,
  /** gsi2: live rooms of one game version in one region (`GET /v1/rooms`). */
  listing: (gameId: string, version: string, region: string) => `LIVE#${gameId}#${version}#${region}`,
  /** gsi3: one shard of all live rooms (the sweeper's worklist). */
  sweep: (shard: number) => `SWEEP#${shard}`,
  /** gsi3: every game configuration, in game and version order. */
  gameCatalog: 'CATALOG#GAME',
  /** gsi3: every session template, in name order. */
  templateCatalog: 'CATALOG#TEMPLATE',
};

/**
 * Shards of the sweeper's index (gsi3). One index partition takes about 1,000 writes/s, and
 * the index is written twice per room (create, end); 8 shards leave room for far more room
 * churn than one region sees, and the sweeper reads them in parallel. Changing the number
 * strands rooms indexed under a shard no longer read: only with a re-index.
 */
export const liveRoomShards = 8;

/** The shard of a room: FNV-1a of its id, so rooms spread evenly whatever their id looks like. */
export function liveRoomShard(roomId: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < roomId.length; i++) {
    hash ^= roomId.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0) % liveRoomShards;
}

export const keys = {
  room: (roomId: string): ItemKey => ({ pk: roomPk(roomId), sk: 'ROOM' }),
  /** An owner's command to the room's game server, beside the room's item (never read with it). */
  command: (roomId: string, commandId: string): ItemKey => ({ pk: roomPk(roomId), sk: `COMMAND#${commandId}` }),
  /** The room's message log: its counter (last seq, last message id) … */
  messageCounter: (roomId: string): ItemKey => ({ pk: roomPk(roomId), sk: 'MESSAGES' }),
  /** … and one item per message, sorted by seq (zero-padded, so text order is number order). */
  message: (roomId: string, seq: number): ItemKey => ({
    pk: roomPk(roomId),
    sk: `MESSAGE#${String(seq).padStart(16, '0')}`,
  }),
  /** A `large` session's member, beside its room's item: one Query pages them in account order. */
  largeMember: (roomId: string, account: string): ItemKey => ({ pk: roomPk(roomId), sk: `MEMBER#${account}` }),
  /** The sort-key prefix of a large session's member items. */
  largeMemberPrefix: 'MEMBER#',
  fillingRoom: (bucket: string): ItemKey => ({ pk: `BUCKET#${bucket}`, sk: 'FILLING' }),
  /** Index keys of a live room: matchmaking bucket (gsi1), game listing (gsi2), sweeper (gsi3). */
  roomIndexes: (room: {
    gameId: string;
    version: string;
    region: string;
    createdAt: string;
    roomId: string;
    bucket?: string;
    standby?: true;
  }) => ({
    ...(room.bucket ? { gsi1pk: indexPartitions.bucket(room.bucket), gsi1sk: `${room.createdAt}#${room.roomId}` } : {}),
    // A standby server is listed for the creates that may take it; the take's write REMOVEs
    // these keys, so the index never lists a taken server (an ended one loses all its keys).
    ...(room.standby
      ? { gsi1pk: indexPartitions.standby(room.gameId, room.version), gsi1sk: `${room.region}#${room.roomId}` }
      : {}),
    // A standby server is nobody's room yet: no listing shows it.
    ...(room.standby
      ? {}
      : {
          gsi2pk: indexPartitions.listing(room.gameId, room.version, room.region),
          gsi2sk: `${room.createdAt}#${room.roomId}`,
        }),
    gsi3pk: indexPartitions.sweep(liveRoomShard(room.roomId)),
    gsi3sk: room.roomId,
  }),
  /** Every index key attribute a live room has: the write that ends a room REMOVEs them all. */
  roomIndexAttributes: ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk'] as const,
  /** The gsi1 partition of a matchmaking bucket's live rooms. */
  bucketIndex: indexPartitions.bucket,
  /** The gsi1 partition of a configuration's standby servers. */
  standbyIndex: indexPartitions.standby,
  /** The gsi2 partition of a game version's live rooms in one region. */
  listingIndex: indexPartitions.listing,
  /** The gsi3 partition of one shard of all live rooms. */
  sweepIndex: indexPartitions.sweep,
  gameConfiguration: (gameId: string, version: string): ItemKey => ({ pk: `GAME#${gameId}`, sk: `VERSION#${version}` }),
  sessionTemplate: (name: string): ItemKey => ({ pk: `TEMPLATE#${name}`, sk: 'TEMPLATE' }),
  /** The gsi3 partition listing every game configuration (`GET /v1/admin/games`). */
  gameCatalogIndex: indexPartitions.gameCatalog,
  /** A configuration's entry in the game catalog; game ids and versions hold no `#`, so the sort key splits back. */
  gameCatalogEntry: (gameId: string, version: string) => ({
    gsi3pk: indexPartitions.gameCatalog,
    gsi3sk: `${gameId}#${version}`,
  }),
  /** The gsi3 partition listing every session template (`GET /v1/admin/templates`). */
  templateCatalogIndex: indexPartitions.templateCatalog,
  templateCatalogEntry: (name: string) => ({ gsi3pk: indexPartitions.templateCatalog, gsi3sk: name }),
  /** What the room sweeper remembers between runs (its last run, a grace period). */
  sweeperState: (): ItemKey => ({ pk: 'SWEEPER', sk: 'STATE' }),
  /** What the controller-requests consumers last reported about the heartbeat pipeline; beside the sweeper's memory. */
  heartbeatPipeline: (): ItemKey => ({ pk: 'SWEEPER', sk: 'PIPELINE' }),
  ban: (account: string): ItemKey => ({ pk: `ACCOUNT#${account}`, sk: 'BAN' }),
  /** A build's component map, under its set hash (docs/versions.md): content-addressed, so immutable. */
  protocolComponents: (hash: string): ItemKey => ({ pk: `PROTOCOL#${hash}`, sk: 'COMPONENTS' }),
  /**
   * The admission gate of one account and action: its sliding-window log and a mirror of the
   * account's ban, so one conditional write decides both. The limit is not part of the key: a
   * changed limit keeps the log (and the ban) and only renumbers the ring (core/abuse/rate-limit.ts).
   */
  accountGate: (account: string, action: string): ItemKey => ({ pk: `ACCOUNT#${account}`, sk: `GATE#${action}` }),
  /**
   * Running-server caps (core/gameservers/server-slot-store.ts): the deployment's counter, one
   * per configuration, and one lease per room holding a server, all in one partition.
   */
  serverSlotPartition: 'SERVERS',
  runningServers: (): ItemKey => ({ pk: 'SERVERS', sk: 'COUNT#*' }),
  runningServersOf: (gameId: string, version: string): ItemKey => ({
    pk: 'SERVERS',
    sk: `COUNT#${gameId}#${version}`,
  }),
  serverLease: (roomId: string): ItemKey => ({ pk: 'SERVERS', sk: `ROOM#${roomId}` }),
  serverLeasePrefix: 'ROOM#',
  /** Regions and hosts (core/placement/fleet-store.ts), one partition read whole by placement. */
  fleetPartition: 'FLEET',
  region: (name: string): ItemKey => ({ pk: 'FLEET', sk: `REGION#${name}` }),
  host: (hostId: string): ItemKey => ({ pk: 'FLEET', sk: `HOST#${hostId}` }),
  /** The warm pool of one configuration in one region: its standby servers and their states (core/pool/pool-store.ts). */
  standbyPool: (gameId: string, version: string, region: string): ItemKey => ({
    pk: `POOL#${gameId}#${version}`,
    sk: `REGION#${region}`,
  }),
  poolRegistryPartition: 'POOLS',
  pooledConfiguration: (gameId: string, version: string): ItemKey => ({ pk: 'POOLS', sk: `${gameId}#${version}` }),
  /** A live-session socket (core/live/subscription-store.ts). */
  liveConnection: (connectionId: string): ItemKey => ({ pk: `CONN#${connectionId}`, sk: 'CONN' }),
  /** One socket's subscription to a room, beside the room: the fanout reads them with one Query. */
  roomSubscription: (roomId: string, connectionId: string): ItemKey => ({
    pk: roomPk(roomId),
    sk: `SUB#${connectionId}`,
  }),
  roomSubscriptionPrefix: 'SUB#',
  /** The sockets one account holds, kept within its bound by a conditional write. */
  accountSockets: (account: string): ItemKey => ({ pk: `ACCOUNT#${account}`, sk: 'LIVE' }),
  /** The invites one account received, kept within its bound by the invite's own transaction. */
  accountInvites: (account: string): ItemKey => ({ pk: `ACCOUNT#${account}`, sk: 'INVITES' }),
  /**
   * One day's spawn/kill history, in `liveRoomShards` partitions by the room's shard (one
   * partition takes about 1,000 writes/s): newest first within each by the sort key's instant.
   */
  historyPartition: (day: string, shard: number): string => `HISTORY#${day}#${shard}`,
  /** One history event: the room's write at `changeNumber`, so a redelivered stream record rewrites the same item. */
  historyEvent: (at: string, roomId: string, changeNumber: number): ItemKey => ({
    pk: `HISTORY#${at.slice(0, 10)}#${liveRoomShard(roomId)}`,
    sk: `${at}#${roomId}#${changeNumber}`,
  }),
  /** How far the one-time pass over the table's older items (`name`: the release's migration) got. */
  upgradeMarker: (name: string): ItemKey => ({ pk: 'UPGRADE', sk: `MIGRATION#${name}` }),
  /** A request made with an `Idempotency-Key`, by account and the key's hash. */
  idempotencyRecord: (account: string, keyHash: string): ItemKey => ({
    pk: `ACCOUNT#${account}`,
    sk: `IDEMPOTENCY#${keyHash}`,
  }),
};
