import { partyTokenClaims } from '../../../core/auth/token-model';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { aRoom } from '../../helpers/factories';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Party joins over real HTTP on DynamoDB Local: party tokens and their refusals, a banned
 * member refusing the whole party, and a member already in the room keeping its slot.
 */
let api: TestApi;
let rooms: RoomStore;
let admin: string;

beforeAll(async () => {
  api = await startTestApi();
  rooms = dynamoRoomStore(api.platform.db, api.platform.tableName);
  admin = await api.platform.token('ops', ['admin']);
});
afterAll(() => api.close());

const tokens = new Map<string, string>();
async function tokenFor(account: string): Promise<string> {
  let token = tokens.get(account);
  if (!token) tokens.set(account, (token = await api.platform.token(account)));
  return token;
}

async function readyRoom(maxPlayers = 8): Promise<string> {
  const room = aRoom({
    state: 'ready',
    players: 0,
    maxPlayers,
    spawnDeadline: new Date(Date.now() + 600_000).toISOString(),
    placement: { taskId: 'local:test', host: '127.0.0.1', ports: [38999] },
  });
  await rooms.createWithMember(room);
  return room.roomId;
}

const join = async (roomId: string, account: string, party?: string[]) =>
  api.call('POST', `/v1/rooms/${roomId}/join`, { token: await tokenFor(account), body: party ? { party } : {} });
const partyToken = async (account: string, leader: string) =>
  api.call('POST', '/v1/me/party-tokens', { token: await tokenFor(account), body: { leader } });
const membersOf = async (roomId: string) => (await rooms.read(roomId))!;

describe('party tokens', () => {
  it('a member mints one for its leader, who seats it: every reservation answered, the caller first', async () => {
    const roomId = await readyRoom();
    const minted = await partyToken('pt-bob', 'pt-alice');
    expect(minted.status).toBe(201);
    expect(Date.parse(minted.body.expiresAt) - Date.now()).toBeLessThanOrEqual(300_000);
    const joined = await join(roomId, 'pt-alice', [minted.body.partyToken, await tokenFor('pt-carol')]);
    expect(joined.status).toBe(200);
    expect(joined.body.reservations.map((r: { account: string }) => r.account)).toEqual([
      'pt-alice',
      'pt-bob',
      'pt-carol',
    ]);
    expect(joined.body.reservation.key).toBe(joined.body.reservations[0].key);
    expect((await membersOf(roomId)).room.players).toBe(3);
  });

  it('refuses, naming the entry: a token for another leader, an expired one, a member twice, the caller itself', async () => {
    const roomId = await readyRoom();
    const forDave = (await partyToken('pt2-bob', 'pt2-dave')).body.partyToken as string;
    const expired = await lambdaPlatform().signToken(
      partyTokenClaims('pt2-erin', 'pt2-alice', new Date(Date.now() - 600_000)),
    );
    const carol = await tokenFor('pt2-carol');
    const answer = await join(roomId, 'pt2-alice', [forDave, expired, carol, carol, await tokenFor('pt2-alice')]);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('BAD_REQUEST');
    expect(answer.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual([
      'body.party[0]',
      'body.party[1]',
      'body.party[3]',
      'body.party[4]',
    ]);
    expect((await membersOf(roomId)).room.players).toBe(0);
  });

  it('is good for nothing else: not a bearer token of the API', async () => {
    const token = (await partyToken('pt3-bob', 'pt3-alice')).body.partyToken as string;
    expect((await api.call('GET', '/v1/rooms', { token })).status).toBe(401);
  });
});

describe('a party join is all or none', () => {
  it('a banned member refuses the whole party, naming it; nobody of the party holds a slot', async () => {
    const roomId = await readyRoom();
    const banned = await api.call('POST', '/v1/admin/bans', {
      token: admin,
      body: { account: 'pb-mallory', reason: 'cheating' },
    });
    expect(banned.status).toBe(201);
    const answer = await join(roomId, 'pb-alice', [await tokenFor('pb-bob'), await tokenFor('pb-mallory')]);
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ code: 'BANNED', details: { account: 'pb-mallory' } });
    const read = await membersOf(roomId);
    expect(Object.keys(read.doc.members)).toEqual([]);
    expect(read.room.players).toBe(0);
  });

  it('a member already in the room keeps its slot and member number, re-keyed: no second slot', async () => {
    const roomId = await readyRoom();
    expect((await join(roomId, 'pk-bob')).status).toBe(200);
    const before = (await membersOf(roomId)).doc.members['pk-bob']!;
    const answer = await join(roomId, 'pk-alice', [await tokenFor('pk-bob'), await tokenFor('pk-carol')]);
    expect(answer.status).toBe(200);
    const after = await membersOf(roomId);
    expect(after.room.players).toBe(3);
    expect(after.doc.members['pk-bob']!.n).toBe(before.n);
    expect(after.doc.members['pk-bob']!.k).not.toBe(before.k);
  });

  it('a party that does not fit whole is ROOM_FULL, though single slots are free', async () => {
    const roomId = await readyRoom(3);
    expect((await join(roomId, 'pf-x')).status).toBe(200);
    const answer = await join(roomId, 'pf-alice', [await tokenFor('pf-bob'), await tokenFor('pf-carol')]);
    expect(answer.status).toBe(409);
    expect(answer.body.error.code).toBe('ROOM_FULL');
    expect((await membersOf(roomId)).room.players).toBe(1);
  });

  it('without a party the answer is as ever: no reservations list', async () => {
    const answer = await join(await readyRoom(), 'solo-alice');
    expect(answer.status).toBe(200);
    expect(answer.body).not.toHaveProperty('reservations');
  });
});
