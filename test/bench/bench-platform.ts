import { join } from 'node:path';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../core/infra/aws-clients';
import { keys } from '../../core/infra/keys';
import { platform } from '../../lambdas/dependencies';
import { startLocalCloud, type LocalCloud } from '../../local/cloud';
import { benchClient, type BenchCall } from './http-client';
import type { StoredRoom } from './baselines';
import { itemSize } from './capacity';
import { forEachLimited } from './progress';
import { RequestCounter } from './request-counter';

/**
 * The platform under test: the whole local cloud (`npm start`'s), driven only through its
 * public HTTP API, so the bench measures whatever join path the tree has. Rooms are made
 * with `POST /v1/rooms` for a bench configuration of the sample game (it calls `inited` at
 * once), so each room is ready, holds 100 slots and its creator holds the first one.
 */
export interface BenchPlatform {
  readonly cloud: LocalCloud;
  readonly call: BenchCall;
  /**
   * Counts the DynamoDB requests the platform makes for one operation (test/bench/request-counter.ts):
   * pass the headers it hands out to every API call of the operation.
   */
  readonly counter: RequestCounter;
  /** Player tokens for fresh accounts, minted by the local `POST /v1/dev/tokens`. */
  tokens(prefix: string, count: number): Promise<string[]>;
  /** Registers another version of the bench game whose rooms hold `maxPlayers` (`standby`: its warm pool). */
  configureVersion(version: string, maxPlayers: number, standby?: number): Promise<void>;
  /** A ready room of `roomSize` slots, created by its own account (which holds one slot). */
  createRoom(): Promise<BenchRoom>;
  /** The room's item as the platform stored it, read strongly consistent. */
  storedRoom(room: BenchRoom): Promise<StoredRoom>;
  /** What the platform says is in the room, read back after a run. */
  occupancy(room: BenchRoom): Promise<Occupancy>;
  /** Stops every game server started so far (rooms already measured). */
  releaseRooms(): Promise<void>;
  stop(): Promise<void>;
}

export interface BenchRoom {
  readonly roomId: string;
  readonly creatorToken: string;
}

export interface Occupancy {
  readonly players: number;
  readonly maxPlayers: number;
  /** Entries in the session document's `members` map, or undefined if the room item has none. */
  readonly members: number | undefined;
}

export const roomSize = 100;
export const benchGame = { gameId: 'bench', version: '1.0.0' } as const;
const sampleGame = join(__dirname, '../../containers/sample-game/bin/sample-game');

type Call = BenchPlatform['call'];

/** Tokens from the local `POST /v1/dev/tokens`, valid for a day. */
function minter(call: Call) {
  return async (account: string, scopes: string[] = []) => {
    const response = await call('POST', '/v1/dev/tokens', { body: { account, scopes, ttlS: 86_400 } });
    if (response.status !== 200) throw new Error(`dev token answered ${response.status}`);
    return response.body.access_token as string;
  };
}

function versionConfigurer(call: Call, admin: string): BenchPlatform['configureVersion'] {
  return async (version, maxPlayers, standby = 0) => {
    const configured = await call('PUT', `/v1/admin/games/${benchGame.gameId}/versions/${version}`, {
      token: admin,
      body: { binary: sampleGame, maxPlayers, spawnTimeoutS: 30, reservationTimeoutS: 3_600, standby },
    });
    if (configured.status !== 200)
      throw new Error(`bench configuration answered ${configured.status}: ${JSON.stringify(configured.body)}`);
  };
}

/**
 * What the API says is in a room, checked against the room's item itself (its `members` map,
 * read strongly consistent): both counts must equal the map's size. Reservations never expire
 * within a bench run.
 */
function occupancyReader(call: Call, db: DynamoDBDocumentClient, tableName: string): BenchPlatform['occupancy'] {
  const storedMembers = async (roomId: string) => {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName, Key: keys.room(roomId), ConsistentRead: true }),
    );
    const members: unknown = Item?.members;
    if (!members || typeof members !== 'object') return undefined;
    return { members: Object.keys(members).length, players: Number(Item?.players) };
  };
  return async (room) => {
    const response = await call('GET', `/v1/rooms/${room.roomId}`, { token: room.creatorToken });
    if (response.status !== 200) throw new Error(`GET room answered ${response.status}`);
    const view = response.body.room;
    const stored = await storedMembers(room.roomId);
    if (stored && stored.players !== view.players)
      throw new Error(`room ${room.roomId}: the API shows ${view.players} players, the document ${stored.players}`);
    return { players: view.players as number, maxPlayers: view.maxPlayers as number, members: stored?.members };
  };
}

export async function startBenchPlatform(): Promise<BenchPlatform> {
  const cloud = await startLocalCloud({
    port: 0,
    gameOutput: 'ignore',
    // Fresh accounts for every join; the limits only need to stay out of the way.
    rateLimits: { createsPerMinute: 10_000, joinsPerMinute: 10_000 },
    // The sweeper is not under test: keep its periodic work out of the measurements.
    sweepIntervalMs: 3_600_000,
  });
  try {
    const call = benchClient(cloud.apiUrl);
    const mint = minter(call);
    const configureVersion = versionConfigurer(call, await mint('bench-admin', ['admin']));
    await configureVersion(benchGame.version, roomSize);
    const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: cloud.dynamodb.endpoint });
    // The platform's own client is counted; the bench's (`db`) reads item sizes beside it, uncounted.
    const counter = new RequestCounter(async (TableName, Key) => {
      const { Item } = await db.send(new GetItemCommand({ TableName, Key, ConsistentRead: true }));
      return Item ? itemSize(Item) : 0;
    });
    counter.install(platform().db);
    let creators = 0;
    return {
      cloud,
      call,
      counter,
      configureVersion,
      tokens: async (prefix, count) => {
        const tokens = new Array<string>(count);
        await forEachLimited(
          Array.from({ length: count }, (_, i) => i),
          16,
          async (i) => {
            tokens[i] = await mint(`${prefix}-${i}`);
          },
        );
        return tokens;
      },
      createRoom: async () => {
        const creatorToken = await mint(`bench-creator-${creators++}`);
        const response = await call('POST', '/v1/rooms', {
          token: creatorToken,
          body: { ...benchGame, maxPlayers: roomSize },
        });
        if (response.status !== 201)
          throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`);
        return { roomId: response.body.room.roomId as string, creatorToken };
      },
      storedRoom: async (room) => {
        const read = new GetCommand({ TableName: cloud.tableName, Key: keys.room(room.roomId), ConsistentRead: true });
        const { Item } = await db.send(read);
        if (!Item) throw new Error(`room ${room.roomId} has no item`);
        return Item;
      },
      occupancy: occupancyReader(call, db, cloud.tableName),
      releaseRooms: () => cloud.fleet.stopAll('bench rooms measured'),
      stop: async () => {
        counter.close();
        db.destroy();
        await cloud.stop();
      },
    };
  } catch (error) {
    await cloud.stop();
    throw error;
  }
}
