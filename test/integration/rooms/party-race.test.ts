import { joinRoom } from '../../../core/rooms/join';
import { RoomFullError } from '../../../core/rooms/join-errors';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { aRoom } from '../../helpers/factories';
import { partyRaceRound, raceAccounts, totalOf, type PartyRaceRound } from '../../helpers/party-race';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The party race on DynamoDB Local: 10 parties of 3 and 20 solo players join a room of 16 at
 * the same moment, 50 times. Each party's claim is ONE conditional write for all of its
 * members, so none is ever split, the room never over-fills, and it always fills up.
 */
let platform: TestPlatform;
let rooms: RoomStore;

beforeAll(async () => {
  platform = await startTestPlatform();
  rooms = dynamoRoomStore(platform.db, platform.tableName);
});
afterAll(() => platform.close());

async function round(n: number): Promise<PartyRaceRound> {
  const room = aRoom({
    state: 'ready',
    players: 0,
    maxPlayers: 16,
    spawnDeadline: new Date(Date.now() + 60_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
  });
  await rooms.createWithMember(room);
  const cache = new PlatformCache();
  const join = async (leader: string, party: readonly string[]) => {
    try {
      await joinRoom(
        {
          roomId: room.roomId,
          account: leader,
          scopes: [],
          ...(party.length > 0 ? { party: party.map((account) => ({ account, scopes: [] })) } : {}),
        },
        {
          sessions: rooms,
          cache,
          now: () => new Date(),
          sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
          answerBy: new Date(Date.now() + 20_000),
          heartbeatTimeoutS: 3_600,
        },
      );
      return 'seated';
    } catch (error) {
      return error instanceof RoomFullError ? 'full' : String(error);
    }
  };
  return partyRaceRound(raceAccounts(`race${n}`, { parties: 10, partySize: 3, solos: 20 }), join, async () => {
    const read = (await rooms.read(room.roomId))!;
    return { players: read.room.players, maxPlayers: read.room.maxPlayers, members: Object.keys(read.doc.members) };
  });
}

describe('the party race: 10 parties of 3 and 20 solo players for 16 slots, all at once', () => {
  it('50 times: never a split party, never over-filled, every slot filled, every answer true', async () => {
    const rounds: PartyRaceRound[] = [];
    for (let n = 0; n < 50; n++) rounds.push(await round(n));
    const total = totalOf(rounds);
    expect(total).toMatchObject({ splitParties: 0, overfill: 0, unfilled: 0, untrue: 0, others: {} });
    // Parties did get in: the rule is all or none, not none.
    expect(total.seatedParties).toBeGreaterThan(0);
  }, 180_000);
});
