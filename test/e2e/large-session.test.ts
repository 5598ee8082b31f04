import { jsonClient, type JsonResponse } from '../helpers/http';
import { startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * A large session filled to 1,000 members on the local cloud, over HTTP only: 1,000 accounts
 * take its slots (the creator's, then 999 joins among 1,000 joiners racing 50 at a time),
 * exactly one joiner is refused ROOM_FULL, a member's GET shows the count and its own entry,
 * and the admin listing pages through every member exactly once.
 */
let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
let admin: string;

const members = 1_000;
const concurrency = 50;

const tokenFor = async (account: string, scopes: string[] = []) => {
  const minted = await call('POST', '/v1/dev/tokens', { body: { account, scopes } });
  expect(minted.status).toBe(200);
  return minted.body.access_token as string;
};

/** `work` over `items`, at most `limit` at once, each answer in its item's place. */
async function limited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const answers = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < items.length; i = next++) answers[i] = await work(items[i]!);
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return answers;
}

beforeAll(async () => {
  test = await startTestCloud([]);
  call = jsonClient(test.cloud.apiUrl);
  admin = await tokenFor('ops', ['admin']);
  const template = { constants: { maxMembers: members, visibility: 'open', capabilities: ['large'] } };
  expect((await call('PUT', '/v1/admin/templates/stadium', { token: admin, body: template })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  expect(await test?.stop()).toEqual([]);
});

it('admits exactly 1,000 members, refuses the next ROOM_FULL, and shows counts, not the list', async () => {
  const creator = await tokenFor('stadium-host');
  const created = await call('POST', '/v1/rooms', { token: creator, body: { template: 'stadium' } });
  expect(created.status).toBe(201);
  const roomId = created.body.room.roomId as string;

  const joiners = Array.from({ length: members }, (_, i) => `fan-${String(i).padStart(4, '0')}`);
  const tokens = await limited(joiners, concurrency, (account) => tokenFor(account));
  const answers: JsonResponse[] = await limited(tokens, concurrency, (token) =>
    call('POST', `/v1/rooms/${roomId}/join`, { token, body: {} }),
  );
  const statuses = answers.map((a) => (a.status === 200 ? 200 : `${a.status} ${a.body?.error?.code}`));
  expect(statuses.filter((s) => s === 200)).toHaveLength(members - 1);
  expect(statuses.filter((s) => s !== 200)).toEqual(['409 ROOM_FULL']);
  const refused = joiners[statuses.findIndex((s) => s !== 200)]!;

  const member = tokens[statuses.indexOf(200)]!;
  const seen = await call('GET', `/v1/rooms/${roomId}`, { token: member });
  expect(seen.status).toBe(200);
  expect(seen.body.room).toMatchObject({ players: members, maxPlayers: members });
  expect(seen.body.room.member).toMatchObject({ account: joiners[statuses.indexOf(200)], state: 'reserved' });
  expect(seen.body.room).not.toHaveProperty('members');

  const listed: string[] = [];
  let cursor: string | undefined;
  let pages = 0;
  do {
    const page = await call('GET', `/v1/rooms/${roomId}/members${cursor ? `?cursor=${cursor}` : ''}`, {
      token: admin,
    });
    expect(page.status).toBe(200);
    listed.push(...(page.body.members as { account: string }[]).map((m) => m.account));
    cursor = page.body.cursor as string | undefined;
    pages++;
  } while (cursor && pages <= members);
  expect(listed).toHaveLength(members);
  expect(new Set(listed).size).toBe(members);
  expect(new Set(listed)).toEqual(new Set(['stadium-host', ...joiners.filter((a) => a !== refused)]));
}, 90_000);
