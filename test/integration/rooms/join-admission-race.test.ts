import { setTimeout as delay } from 'node:timers/promises';
import { BanStore } from '../../../core/abuse/ban-store';
import { AbuseGuard } from '../../../core/abuse/guard';
import { RateLimitStore } from '../../../core/abuse/rate-limit-store';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { JoinRateLimitedError } from '../../../core/abuse/errors';
import { joinRoom, type JoinRoomDependencies } from '../../../core/rooms/join';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { aRoom } from '../../helpers/factories';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * A join's account checks run beside its claim (core/rooms/join.ts), so a join they refuse
 * holds its slot for one round trip before the claim is undone. An account refused by its full
 * rate log is remembered as refused until the log can admit again: hammering a room's last
 * slot claims it at most once per process per window, never on every attempt. Real DynamoDB
 * Local, real stores, one AbuseGuard per "process".
 */
let platform: TestPlatform;
let rooms: RoomStore;
let sessions: RoomStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = dynamoRoomStore(platform.db, platform.tableName);
  sessions = dynamoRoomStore(platform.db, platform.tableName);
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
  await rooms.createWithMember(room);
  return room.roomId;
}

/** One process: its own cache and guard on the shared table, joins limited to 1 a minute. */
function lambdaProcess() {
  const cache = new PlatformCache();
  const guard = new AbuseGuard({
    bans: new BanStore(platform.db, platform.tableName),
    rates: new RateLimitStore(platform.db, platform.tableName, cache),
    limits: { joinsPerMinute: 1, createsPerMinute: 1 },
    cache,
  });
  return { cache, guard };
}

/** The session store, counting the claims each account sends. */
function countingSessions() {
  const claims = new Map<string, number>();
  const counted: JoinRoomDependencies['sessions'] = {
    read: (roomId) => sessions.read(roomId),
    claim: (roomId, spec, now) => {
      const account = spec.members[0]!.account;
      claims.set(account, (claims.get(account) ?? 0) + 1);
      return sessions.claim(roomId, spec, now);
    },
    reclaimAndClaim: (roomId, spec, now) => sessions.reclaimAndClaim(roomId, spec, now),
    reissueKey: (roomId, change) => sessions.reissueKey(roomId, change),
    undoClaim: (roomId, undo, now) => sessions.undoClaim(roomId, undo, now),
  };
  return { counted, claims };
}

function join(
  roomId: string,
  account: string,
  process: ReturnType<typeof lambdaProcess>,
  store: JoinRoomDependencies['sessions'] = sessions,
): Promise<unknown> {
  const now = new Date();
  return joinRoom(
    { roomId, account, scopes: [] },
    {
      sessions: store,
      cache: process.cache,
      now: () => new Date(),
      sleep: (ms) => delay(ms),
      answerBy: new Date(now.getTime() + 5_000),
      heartbeatTimeoutS: 3_600,
      accountChecks: process.guard.checks('join', account, now),
    },
  ).then(
    (result) => (result.reservation.key.length > 0 ? 'joined' : result),
    (error: unknown) => error,
  );
}

describe('a join refused by its account checks holds a slot once per process per window, not per attempt', () => {
  it('an account past its limit hammering the last slot claims it once in each process; then a legitimate join gets it', async () => {
    const roomId = await roomWithOneFreeSlot();
    const processes = [lambdaProcess(), lambdaProcess()];
    // Mallory spends her one join of the minute elsewhere.
    await processes[0]!.guard.assertJoinAllowed('mallory', new Date());
    const { counted, claims } = countingSessions();

    const outcomes: unknown[] = [];
    for (let i = 0; i < 20; i++) outcomes.push(await join(roomId, 'mallory', processes[i % 2]!, counted));

    process.stdout.write(
      `20 joins of a rate-limited account over 2 processes: ${claims.get('mallory') ?? 0} claims written (expected 2, one per process)\n`,
    );
    expect(outcomes.every((o) => o instanceof JoinRateLimitedError)).toBe(true);
    expect(claims.get('mallory')).toBe(2);
    expect(await join(roomId, 'alice', processes[0]!)).toBe('joined');
    const after = await sessions.read(roomId);
    expect(Object.keys(after?.doc.members ?? {})).toEqual(['alice']);
    expect(after?.room.players).toBe(1);
  });

  it('answers ROOM_FULL at once when the member holding the last slot passed its checks', async () => {
    const roomId = await roomWithOneFreeSlot();
    const serving = lambdaProcess();
    expect(await join(roomId, 'bob', serving)).toBe('joined');
    expect(await join(roomId, 'carol', serving)).toMatchObject({ code: 'ROOM_FULL' });
  });
});
