import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { SweeperStateStore } from '../../../core/rooms/sweeper-state-store';
import { routes } from '../../../lambdas/http/routes';
import { startApiGateway, type LocalApiGateway } from '../../../local/api-gateway';
import { httpHandlers } from '../../../local/http-handlers';
import { aRoom } from '../../helpers/factories';
import { jsonClient } from '../../helpers/http';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * A ready room whose server has gone silent takes no joins, through the real HTTP routes and
 * DynamoDB Local's conditional writes, and is not failed by being refused. The refusal is
 * final (409) only when the platform was hearing other heartbeats meanwhile; a silence the
 * platform itself may have caused (a stall) is 503 UNAVAILABLE with Retry-After.
 */
let platform: TestPlatform;
let gateway: LocalApiGateway;
let call: ReturnType<typeof jsonClient>;
let rooms: RoomStore;
let members: RoomStore;
let pipeline: SweeperStateStore;

beforeAll(async () => {
  platform = await startTestPlatform({ HEARTBEAT_TIMEOUT_S: '10' });
  gateway = await startApiGateway({ routes, handlers: httpHandlers, port: 0 });
  call = jsonClient(gateway.url);
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  members = dynamoRoomStore(platform.db, platform.tableName);
  pipeline = new SweeperStateStore(platform.db, platform.tableName);
});
/** Each test starts with a platform that hears its other rooms: a consumer applied a fresh heartbeat just now. */
beforeEach(async () => {
  await pipeline.report({ heardAt: new Date() });
  await pipeline.report({ disruptedAt: new Date(0) });
});
afterAll(async () => {
  await gateway.close();
  await platform.close();
});

async function readyRoom(heartbeatAgoS: number) {
  const room = aRoom({
    state: 'ready',
    players: 0,
    maxPlayers: 4,
    spawnDeadline: new Date(Date.now() + 60_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
    lastHeartbeatAt: new Date(Date.now() - heartbeatAgoS * 1000).toISOString(),
  });
  await rooms.createWithMember(room);
  return room;
}

const join = async (roomId: string, account: string) =>
  call('POST', `/v1/rooms/${roomId}/join`, { token: await platform.token(account) });

describe('joining a room by its server heartbeat', () => {
  it('answers 200 while the server was heard from within the heartbeat timeout', async () => {
    const room = await readyRoom(3);
    expect((await join(room.roomId, 'alice')).status).toBe(200);
  });

  it('answers 409 NOT_JOINABLE once the server has been silent longer, without failing the room or taking a slot', async () => {
    const room = await readyRoom(11);
    const response = await join(room.roomId, 'alice');
    expect([response.status, response.body.error.code]).toEqual([409, 'NOT_JOINABLE']);
    expect(response.body.error.message).toMatch(/not been heard from/);
    expect(await rooms.get(room.roomId)).toMatchObject({ state: 'ready', players: 0 });
    expect(await members.listMembers(room.roomId)).toEqual([]);
  });

  it('takes joins again as soon as a heartbeat arrives', async () => {
    const room = await readyRoom(11);
    expect((await join(room.roomId, 'alice')).status).toBe(409);
    await rooms.recordHeartbeat(room.roomId, new Date());
    expect((await join(room.roomId, 'alice')).status).toBe(200);
  });

  it('refuses the slot inside the claim itself when the room fell silent after it was read', async () => {
    const room = await readyRoom(11);
    const now = new Date();
    const outcome = await members.claim(
      room.roomId,
      {
        members: [
          { account: 'bob', keyHash: 'h'.repeat(22), member: { s: 0, t: now.getTime(), e: now.getTime() + 30_000 } },
        ],
        heartbeatSince: new Date(now.getTime() - 10_000).toISOString(),
      },
      now.getTime(),
    );
    expect(outcome).toEqual({ state: 'Silent' });
    expect((await rooms.get(room.roomId)).players).toBe(0);
  });

  it('answers 503 UNAVAILABLE with Retry-After when heartbeats were dropped after the room was last heard (a DynamoDB stall)', async () => {
    const room = await readyRoom(12);
    // The consumer could not apply heartbeats during the stall, and said so once it could write again.
    await pipeline.report({ disruptedAt: new Date(Date.now() - 3_000) });
    const response = await join(room.roomId, 'dave');
    expect([response.status, response.body.error.code]).toEqual([503, 'UNAVAILABLE']);
    expect(response.body.error.message).toMatch(/not been heard from lately/);
    expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await rooms.get(room.roomId)).toMatchObject({ state: 'ready', players: 0 });
    // Heard again (the pipeline caught up): joined at once.
    await rooms.recordHeartbeat(room.roomId, new Date());
    expect((await join(room.roomId, 'dave')).status).toBe(200);
  });

  it('answers 503 UNAVAILABLE right after a stall, before any consumer reported it: nothing was heard since the room went silent', async () => {
    const room = await readyRoom(30);
    // The last fresh heartbeat any consumer applied is as old as the room's silence.
    await pipeline.report({ heardAt: new Date(Date.now() - 30_000) });
    const response = await join(room.roomId, 'erin');
    expect([response.status, response.body.error.code]).toEqual([503, 'UNAVAILABLE']);
    expect(Number(response.headers.get('retry-after'))).toBe(2);
  });

  it('answers 409 NOT_JOINABLE for a really dead server: other rooms were heard all along, nothing disrupted', async () => {
    const room = await readyRoom(15);
    // A disruption long before the room went silent says nothing about it.
    await pipeline.report({ disruptedAt: new Date(Date.now() - 60_000) });
    const response = await join(room.roomId, 'frank');
    expect([response.status, response.body.error.code]).toEqual([409, 'NOT_JOINABLE']);
  });

  it('sends matchmaking past a silent room to a new one', async () => {
    // Covered on real servers in test/e2e/liveness.test.ts; here the named-room route is the contract.
    const silent = await readyRoom(60);
    const fresh = await readyRoom(1);
    expect((await join(silent.roomId, 'carol')).status).toBe(409);
    expect((await join(fresh.roomId, 'carol')).status).toBe(200);
  });
});
