import { randomUUID } from 'node:crypto';
import { MessageStore } from '../../../core/commands/message-store';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import { aRoom } from '../../helpers/factories';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * The owner's message long poll (`GET /v1/rooms/{roomId}/messages`) holds a request open and
 * reads the table several times a second: it is ban-checked and counted per account by the
 * abuse guard like commands, through the real route on DynamoDB Local.
 */
const limit = 3;
let api: TestApi;
let admin: string;

beforeAll(async () => {
  api = await startTestApi({ MESSAGE_POLL_RATE_LIMIT_PER_MINUTE: String(limit) });
  admin = await api.platform.token('ops', ['admin']);
});
afterAll(() => api.close());

/** A room of `owner` whose game has sent its owner one message. */
async function roomWithMessage(owner: string): Promise<string> {
  const room = aRoom({ owner });
  await dynamoRoomStore(api.platform.db, api.platform.tableName).createWithMember(room);
  await new MessageStore(api.platform.db, api.platform.tableName).append(
    room.roomId,
    randomUUID(),
    { hello: owner },
    new Date(),
  );
  return room.roomId;
}

const poll = async (roomId: string, token: string) =>
  api.call('GET', `/v1/rooms/${roomId}/messages?after=0&waitS=0`, { token });

it('refuses a banned owner its own room’s messages: 403 BANNED', async () => {
  const roomId = await roomWithMessage('mallory');
  const mallory = await api.platform.token('mallory');
  expect((await poll(roomId, mallory)).status).toBe(200);

  const ban = await api.call('POST', '/v1/admin/bans', { token: admin, body: { account: 'mallory' } });
  expect(ban.status).toBe(201);
  const refused = await poll(roomId, mallory);
  expect(refused.status).toBe(403);
  expect(refused.body.error).toEqual({ code: 'BANNED', message: 'This account is banned.' });
});

it(`answers the poll past ${limit} a minute with 429 and Retry-After; other accounts poll on`, async () => {
  const alicesRoom = await roomWithMessage('alice');
  const carolsRoom = await roomWithMessage('carol');
  const alice = await api.platform.token('alice');
  const carol = await api.platform.token('carol');

  for (let i = 0; i < limit; i++) {
    const read = await poll(alicesRoom, alice);
    expect([read.status, read.body.messages]).toEqual([200, [expect.objectContaining({ data: { hello: 'alice' } })]]);
  }
  const limited = await poll(alicesRoom, alice);
  expect(limited.status).toBe(429);
  expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(limited.body.error).toEqual({
    code: 'RATE_LIMITED',
    message: expect.stringMatching(/^Too many message polls from this account: at most 3 per 60 s\. Retry in \d+ s\.$/),
    details: { action: 'messagePoll', limit, windowS: 60, retryAfterS: Number(limited.headers.get('retry-after')) },
  });

  // Another account's polls are its own: carol reads hers, as often as her own allowance lets her.
  for (let i = 0; i < limit; i++) {
    const read = await poll(carolsRoom, carol);
    expect([read.status, read.body.messages]).toEqual([200, [expect.objectContaining({ data: { hello: 'carol' } })]]);
  }
});

it('counts polls of rooms the caller does not own: hammering with 403s still ends in 429', async () => {
  const roomId = await roomWithMessage('dave');
  const eve = await api.platform.token('eve');
  const statuses: number[] = [];
  for (let i = 0; i <= limit; i++) statuses.push((await poll(roomId, eve)).status);
  expect(statuses).toEqual([...Array.from({ length: limit }, () => 403), 429]);
});
