import { jsonClient } from '../helpers/http';
import { openLive, type LiveClient } from '../helpers/live-client';
import { startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * Invites on the local cloud, end to end: an invite accepted (join → 200 with a key) and one
 * declined (DELETE → gone from GET /v1/me/invites, the slot free), and the invite frame on the
 * invited account's live socket.
 */
let test: TestCloud;
let call: ReturnType<typeof jsonClient>;
const sockets: LiveClient[] = [];

const tokenFor = async (account: string) =>
  (await call('POST', '/v1/dev/tokens', { body: { account } })).body.access_token as string;

beforeAll(async () => {
  test = await startTestCloud([]);
  call = jsonClient(test.cloud.apiUrl);
  const admin = (await call('POST', '/v1/dev/tokens', { body: { account: 'ops', scopes: ['admin'] } })).body
    .access_token as string;
  // The creator hosts; it never pings here, so it must not be judged silent while the test runs.
  const party = { constants: { maxMembers: 3, visibility: 'open', hostTimeoutMs: 600_000 } };
  expect((await call('PUT', '/v1/admin/templates/inv-party', { token: admin, body: party })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await Promise.all(sockets.map((s) => s.close()));
  expect(await test?.stop()).toEqual([]);
});

it('an invite accepted and one declined, the invited socket told', async () => {
  const [alice, bob, carol, dave] = await Promise.all(['inv-alice', 'inv-bob', 'inv-carol', 'inv-dave'].map(tokenFor));
  const live = await openLive(test.cloud.liveUrl, bob);
  sockets.push(live);
  const created = await call('POST', '/v1/rooms', { token: alice, body: { template: 'inv-party' } });
  expect(created.status).toBe(201);
  const roomId = created.body.room.roomId as string;
  const closed = await call('PATCH', `/v1/rooms/${roomId}`, {
    token: alice,
    body: { properties: { joinability: 'inviteOnly' } },
  });
  expect(closed.status).toBe(200);

  const invited = await call('POST', `/v1/rooms/${roomId}/invites`, {
    token: alice,
    body: { accounts: ['inv-bob', 'inv-carol'] },
  });
  expect(invited.status).toBe(201);
  expect(invited.body.room.players).toBe(3);
  expect(await live.next(5_000)).toMatchObject({ type: 'invite', roomId, invitedBy: 'inv-alice' });
  const listed = await call('GET', '/v1/me/invites', { token: bob });
  expect(listed.body.invites).toEqual([{ roomId, invitedBy: 'inv-alice', expiresAt: expect.any(String) }]);

  // Accepted: the invited account's join re-keys its slot; an outsider is not let in.
  const accepted = await call('POST', `/v1/rooms/${roomId}/join`, { token: bob, body: {} });
  expect(accepted.status).toBe(200);
  expect(accepted.body.reservation.key).toEqual(expect.any(String));
  expect((await call('POST', `/v1/rooms/${roomId}/join`, { token: dave, body: {} })).body.error.code).toBe(
    'NOT_JOINABLE',
  );

  // Declined: the slot is free and the invite gone from the list.
  expect((await call('DELETE', `/v1/rooms/${roomId}/members/me`, { token: carol })).status).toBe(204);
  expect((await call('GET', '/v1/me/invites', { token: carol })).body.invites).toEqual([]);
  const room = await call('GET', `/v1/rooms/${roomId}`, { token: alice });
  expect(room.body.room.players).toBe(2);
  expect((room.body.room.members as { account: string }[]).map((m) => m.account).sort()).toEqual([
    'inv-alice',
    'inv-bob',
  ]);
});
