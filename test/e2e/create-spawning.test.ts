import { join } from 'node:path';
import { jsonClient } from '../helpers/http';
import { startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Issue 27, point 1: a create answered 202 "still spawning" carries the creator's reservation,
 * as its 201 does and as matchmaking's 202 does. On the local cloud, with a game that starts
 * 2 s late (test/fixtures/games/slow-start-game.mjs) and a 0.3 s create wait, the key of the
 * 202 is the one the game confirms with `joined` once the room is ready, and a retried create
 * with the same Idempotency-Key gets the same answer, key included: one room, one seat.
 */
const slowGame = join(__dirname, '../fixtures/games/slow-start-game.mjs');

let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
let alice: string;

beforeAll(async () => {
  test = await startTestCloud(
    [
      {
        gameId: 'slow',
        version: '1',
        configuration: {
          binary: slowGame,
          args: ['ok'],
          maxPlayers: 4,
          spawnTimeoutS: 20,
          commands: ['join'],
          env: { SLOW_START_MS: '2000' },
        },
      },
    ],
    { createWaitS: 0.3 },
  );
  call = jsonClient(test.cloud.apiUrl);
  alice = (await call('POST', '/v1/dev/tokens', { body: { account: 'alice' } })).body.access_token;
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

async function untilReady(roomId: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const read = await call('GET', `/v1/rooms/${roomId}`, { token: alice });
    if (read.body.room.state !== 'spawning' || Date.now() > deadline) return read.body.room;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('a create answered while its room still spawns (202)', () => {
  it("carries the creator's reservation, whose key the game confirms once ready; a retry with the same key gets the same seat", async () => {
    const body = { gameId: 'slow', version: '1', settings: { map: 'harbor' } };
    const headers = { 'idempotency-key': 'alice-first-room' };
    const created = await call('POST', '/v1/rooms', { token: alice, body, headers });
    expect(created.status).toBe(202);
    const { roomId } = created.body.room;
    expect(created.headers.get('location')).toBe(`/v1/rooms/${roomId}`);
    expect(created.body.room).toMatchObject({ state: 'spawning', players: 1 });
    // The shape of the 201's and matchmaking's: the address is not known yet.
    const { reservation } = created.body;
    expect(reservation).toEqual({
      key: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      host: 'pending',
      ports: [expect.any(Number)],
      expiresAt: expect.any(String),
    });

    // A retried create (the answer was lost) gets the same answer: the same room and key.
    const retried = await call('POST', '/v1/rooms', { token: alice, body, headers });
    expect([retried.status, retried.body]).toEqual([202, created.body]);
    expect(retried.headers.get('idempotent-replayed')).toBe('true');

    // Once ready, GET gives the creator the address; the key of the 202 is the seat.
    const room = await untilReady(roomId);
    expect(room).toMatchObject({ state: 'ready', players: 1, server: { host: '127.0.0.1' } });
    expect(room.members).toEqual([{ account: 'alice', state: 'reserved', properties: { custom: {} } }]);
    const joined = await call('POST', `/v1/rooms/${roomId}/commands`, {
      token: alice,
      body: { command: 'join', args: { key: reservation.key } },
    });
    expect([joined.status, joined.body.state]).toEqual([200, 'answered']);
    expect(joined.body.result).toMatchObject({ result: { account: 'alice' } });
    const confirmed = await call('GET', `/v1/rooms/${roomId}`, { token: alice });
    expect(confirmed.body.room).toMatchObject({
      players: 1,
      members: [{ account: 'alice', state: 'active', properties: { custom: {} } }],
    });

    // The retry after the room became ready still names the one room: no second seat, no second room.
    const later = await call('POST', '/v1/rooms', { token: alice, body, headers });
    expect(later.body.reservation.key).toBe(reservation.key);
    const listed = await call('GET', '/v1/rooms?gameId=slow&version=1', { token: alice });
    expect(listed.body.rooms.map((r: { roomId: string }) => r.roomId)).toEqual([roomId]);
  });
});
