import { randomUUID } from 'node:crypto';
import { gameServerAccount } from '../../../core/auth/token-model';
import { MessageStore } from '../../../core/commands/message-store';
import { standbyOwner } from '../../../core/pool/warm-pool';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { defaultConstants } from '../../../core/rooms/session-model';
import { aRoom } from '../../helpers/factories';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Every unassigned standby server is a room owned by the account `@standby`, and some identity
 * providers allow that `sub`. A token for it (or for a game server's own account name) must
 * open nothing: refused at verification, on every route, with a sentence that says why.
 */
let api: TestApi;
let rooms: RoomStore;
let standbyRoomId: string;

beforeAll(async () => {
  api = await startTestApi();
  rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
  const room = aRoom({
    owner: standbyOwner,
    standby: true,
    settings: {},
    commands: ['say'],
    spawnDeadline: new Date(Date.now() + 60_000).toISOString(),
    constants: { ...defaultConstants({ maxPlayers: 8, reservationTimeoutS: 30 }), visibility: 'private' },
    properties: { joinability: 'closed', custom: {} },
  });
  await rooms.createWithMember(room);
  standbyRoomId = room.roomId;
  // What the game of a standby server told its (future) owner: nobody may read it yet.
  await new MessageStore(api.platform.db, api.platform.tableName).append(
    room.roomId,
    randomUUID(),
    { warmup: 'done' },
    new Date(),
  );
});
afterAll(() => api.close());

const attempts = [
  ['poll its messages', 'GET', (id: string) => `/v1/rooms/${id}/messages`, undefined],
  ['read it', 'GET', (id: string) => `/v1/rooms/${id}`, undefined],
  ['command its game server', 'POST', (id: string) => `/v1/rooms/${id}/commands`, { command: 'say' }],
  ['join it', 'POST', (id: string) => `/v1/rooms/${id}/join`, {}],
  ['change it', 'PATCH', (id: string) => `/v1/rooms/${id}`, { properties: { joinability: 'open' } }],
] as const;

describe.each([
  ['@standby, the owner of every unassigned standby server', () => standbyOwner],
  ["server:<roomId>, a game server's own account", () => gameServerAccount(standbyRoomId)],
])('a token whose sub is %s', (_name, account) => {
  it.each(attempts)('cannot %s: 401 saying the account name is reserved', async (_action, method, path, body) => {
    const token = await api.platform.token(account(), ['admin']);
    const response = await api.call(method, path(standbyRoomId), { token, body });
    expect(response.status).toBe(401);
    expect(response.body.error.code).toBe('UNAUTHORIZED');
    expect(response.body.error.message).toBe(
      "The token's subject is an account name the platform reserves for itself (one starting with '@' or 'server:'); the player and admin API accept no such account.",
    );
  });
});

it('leaves the standby room as it was: nobody’s, unchanged', async () => {
  expect(await rooms.find(standbyRoomId)).toMatchObject({ owner: standbyOwner, standby: true, changeNumber: 1 });
});
