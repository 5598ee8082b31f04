import { dataOf, type RoomkeeperClient } from '../../client/index';

/**
 * Every call the console makes, through the typed client (client/index.ts): the types come
 * from docs/openapi.json, so a page cannot drift from the API.
 */
export function consoleApi(client: RoomkeeperClient) {
  return {
    listRooms: async (query: RoomFilter & { nextToken?: string }) =>
      dataOf(await client.GET('/v1/admin/rooms', { params: { query: { limit: 100, ...query } } })),
    getRoom: async (roomId: string) =>
      dataOf(await client.GET('/v1/rooms/{roomId}', { params: { path: { roomId } } })).room,
    closeRoom: async (roomId: string) =>
      dataOf(await client.POST('/v1/admin/rooms/{roomId}/close', { params: { path: { roomId } } })).room,
    removeMember: async (roomId: string, account: string) =>
      dataOf(
        await client.DELETE('/v1/rooms/{roomId}/members/{account}', {
          params: { path: { roomId, account }, header: {} },
        }),
      ).room,
    banAccount: async (account: string, reason: string) =>
      dataOf(await client.POST('/v1/admin/bans', { body: { account, ...(reason ? { reason } : {}) } })),
    listHosts: async () => dataOf(await client.GET('/v1/admin/hosts')).hosts,
    getPool: async () => dataOf(await client.GET('/v1/admin/pool')).pools,
    listHistory: async (query: { roomId?: string; nextToken?: string }) =>
      dataOf(await client.GET('/v1/admin/history', { params: { query: { limit: 50, ...query } } })),
    listQueues: async () => dataOf(await client.GET('/v1/admin/queues')).queues,
    redrive: async (queueId: string, max: number) =>
      dataOf(await client.POST('/v1/admin/queues/{queueId}/redrive', { params: { path: { queueId } }, body: { max } })),
    listConfigurations: async () => dataOf(await client.GET('/v1/admin/games')).configurations,
    listTemplates: async () => dataOf(await client.GET('/v1/admin/templates')).templates,
    tailLogs: async (query: { roomId?: string; after?: number }) =>
      dataOf(await client.GET('/v1/dev/logs', { params: { query: { limit: 200, ...query } } })),
  };
}

export type ConsoleApi = ReturnType<typeof consoleApi>;
export type RoomList = Awaited<ReturnType<ConsoleApi['listRooms']>>;
export type RoomView = Awaited<ReturnType<ConsoleApi['getRoom']>>;

export interface RoomFilter {
  gameId?: string;
  version?: string;
  region?: string;
  state?: 'spawning' | 'ready';
  template?: string;
}
