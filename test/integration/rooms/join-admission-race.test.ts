import { setTimeout as delay } from 'node:timers/promises';
import { JoinRateLimitedError } from '../../../core/abuse/errors';
import { joinRoom, type JoinRoomDependencies } from '../../../core/rooms/join';
import { RoomStore } from '../../../core/rooms/store';
import { RoomConstantsCache } from '../../../core/sessions/room-cache';
import { SessionStore } from '../../../core/sessions/store';
import { aRoom } from '../../helpers/factories';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * Issue 9: a join whose account checks refuse it (rate limited, banned) holds its slot for the
 * moment between its claim and its undo. A legitimate join racing it for the last slot must
 * not be told ROOM_FULL while that slot is about to come free. Real DynamoDB Local, real
 * concurrency: the refused join's checks answer 300 ms after its claim was written.
 */
let platform: TestPlatform;
let rooms: RoomStore;
let sessions: SessionStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = new RoomStore(platform.db, platform.tableName);
  sessions = new SessionStore(platform.db, platform.tableName);
});
afterAll(() => platform.close());

async function roomWithOneFreeSlot(): Promise<string> {
  const room = aRoom({
    state: 'ready',
    players: 0,
    maxPlayers: 1,
    spawnDeadline: new Date(Date.now() + 60_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
  });
  await rooms.create(room);
  return room.roomId;
}

function deps(admit: JoinRoomDependencies['admit']): JoinRoomDependencies {
  return {
    sessions,
    cache: new RoomConstantsCache(),
    now: () => new Date(),
    sleep: (ms) => delay(ms),
    answerBy: new Date(Date.now() + 5_000),
    heartbeatTimeoutS: 3_600,
    admit,
  };
}

describe('a join refused by its account checks never makes another join ROOM_FULL', () => {
  it('the legitimate racer for the last slot gets it once the refused claim is undone', async () => {
    const roomId = await roomWithOneFreeSlot();
    const refusal = new JoinRateLimitedError('mallory', { action: 'join', limit: 20, windowS: 60, retryAfterS: 30 });
    const mallory = joinRoom(
      { roomId, account: 'mallory', scopes: [] },
      deps(async () => {
        await delay(300);
        throw refusal;
      }),
    ).then(
      () => 'joined',
      (error: unknown) => error,
    );
    // Mallory's claim is written long before her checks answer.
    for (let i = 0; i < 50 && (await sessions.read(roomId))?.doc.members.mallory === undefined; i++) await delay(10);
    expect((await sessions.read(roomId))?.doc.members.mallory).toBeDefined();

    const alice = await joinRoom(
      { roomId, account: 'alice', scopes: [] },
      deps(() => Promise.resolve()),
    ).then(
      (result) => result.reservation.key.length > 0,
      (error: unknown) => error,
    );

    expect(await mallory).toBe(refusal);
    expect(alice).toBe(true);
    const after = await sessions.read(roomId);
    expect(Object.keys(after?.doc.members ?? {})).toEqual(['alice']);
    expect(after?.room.players).toBe(1);
  });

  it('still answers ROOM_FULL when the member holding the last slot passed its checks', async () => {
    const roomId = await roomWithOneFreeSlot();
    await joinRoom(
      { roomId, account: 'bob', scopes: [] },
      deps(() => undefined),
    );
    const carol = await joinRoom(
      { roomId, account: 'carol', scopes: [] },
      deps(() => undefined),
    ).catch((error: unknown) => error);
    // Not a 503 after waiting out the deadline: a member that passed its checks is final.
    expect(carol).toMatchObject({ code: 'ROOM_FULL' });
  });
});
