import { join } from 'node:path';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../core/infra/aws-clients';
import { keys } from '../../core/infra/keys';
import { startLocalCloud, type LocalCloud } from '../../local/cloud';
import { jsonClient, type JsonResponse } from '../helpers/http';
import { forEachLimited } from './progress';

/**
 * The platform under test: the whole local cloud (`npm start`'s), driven only through its
 * public HTTP API, so the bench measures whatever join path the tree has. Rooms are made
 * with `POST /v1/rooms` for a bench configuration of the sample game (it calls `inited` at
 * once), so each room is ready, holds 100 slots and its creator holds the first one.
 */
export interface BenchPlatform {
  readonly cloud: LocalCloud;
  readonly call: (method: string, path: string, init?: { token?: string; body?: unknown }) => Promise<JsonResponse>;
  /** Player tokens for fresh accounts, minted by the local `POST /v1/dev/tokens`. */
  tokens(prefix: string, count: number): Promise<string[]>;
  /** Registers another version of the bench game whose rooms hold `maxPlayers`. */
  configureVersion(version: string, maxPlayers: number): Promise<void>;
  /** A ready room of `roomSize` slots, created by its own account (which holds one slot). */
  createRoom(): Promise<BenchRoom>;
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
    const call = jsonClient(cloud.apiUrl);
    let creators = 0;
    const mint = async (account: string, scopes: string[] = []) => {
      const response = await call('POST', '/v1/dev/tokens', { body: { account, scopes, ttlS: 86_400 } });
      if (response.status !== 200) throw new Error(`dev token answered ${response.status}`);
      return response.body.access_token as string;
    };
    const admin = await mint('bench-admin', ['admin']);
    const configureVersion = async (version: string, maxPlayers: number) => {
      const configured = await call('PUT', `/v1/admin/games/${benchGame.gameId}/versions/${version}`, {
        token: admin,
        body: { binary: sampleGame, maxPlayers, spawnTimeoutS: 30, reservationTimeoutS: 3_600 },
      });
      if (configured.status !== 200)
        throw new Error(`bench configuration answered ${configured.status}: ${JSON.stringify(configured.body)}`);
    };
    await configureVersion(benchGame.version, roomSize);
    // The session document itself, read directly: the exactness check counts its members map.
    const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: cloud.dynamodb.endpoint });

    return {
      cloud,
      call,
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
      occupancy: async (room) => {
        const response = await call('GET', `/v1/rooms/${room.roomId}`, { token: room.creatorToken });
        if (response.status !== 200) throw new Error(`GET room answered ${response.status}`);
        const view = response.body.room;
        // The API's count and the document's own: both must equal the members map's size.
        const stored = await storedMembers(room.roomId);
        if (stored && stored.players !== view.players)
          throw new Error(`room ${room.roomId}: the API shows ${view.players} players, the document ${stored.players}`);
        return { players: view.players as number, maxPlayers: view.maxPlayers as number, members: stored?.members };
      },
      releaseRooms: () => cloud.fleet.stopAll('bench rooms measured'),
      stop: async () => {
        db.destroy();
        await cloud.stop();
      },
    };

    /**
     * Members in the room's session document (the `members` map of its one item), read
     * strongly consistent. Reservations never expire within a bench run.
     */
    async function storedMembers(roomId: string): Promise<{ members: number; players: number } | undefined> {
      const { Item } = await db.send(
        new GetCommand({ TableName: cloud.tableName, Key: keys.room(roomId), ConsistentRead: true }),
      );
      const members: unknown = Item?.members;
      if (!members || typeof members !== 'object') return undefined;
      return { members: Object.keys(members).length, players: Number(Item?.players) };
    }
  } catch (error) {
    await cloud.stop();
    throw error;
  }
}
