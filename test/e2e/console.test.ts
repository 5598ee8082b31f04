import type { Page } from 'playwright-core';
import type { LocalCloud } from '../../local/cloud';
import { buildConsole, launchConsoleBrowser, type ConsoleBrowser } from '../helpers/console-browser';
import { jsonClient } from '../helpers/http';
import { fixtureGame, startTestCloud, type TestCloud } from '../helpers/local-cloud';

/**
 * The operator console in Debian's headless Chromium against a local cloud this test starts:
 * it signs in by itself, lists live rooms by id, follows a room, and its admin actions ask
 * for confirmation first.
 */
let test: TestCloud;
let cloud: LocalCloud;
let call: ReturnType<typeof jsonClient>;
let browser: ConsoleBrowser;
let page: Page;

const tokenFor = async (account: string, scopes?: string[]) =>
  (await call('POST', '/v1/dev/tokens', { body: { account, ...(scopes ? { scopes } : {}) } })).body
    .access_token as string;

beforeAll(async () => {
  buildConsole();
  test = await startTestCloud([
    { gameId: 'ok', version: '1', configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 8 } },
  ]);
  cloud = test.cloud;
  call = jsonClient(cloud.apiUrl);
  const admin = await tokenFor('ops', ['admin']);
  // A reserved slot of this template lapses 4 s after the join unless its member gets ready.
  const lobby = { constants: { maxMembers: 4, visibility: 'open', timeouts: { reservedMs: 4_000 } } };
  expect((await call('PUT', '/v1/admin/templates/console-lobby', { token: admin, body: lobby })).status).toBe(200);
  browser = await launchConsoleBrowser();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  expect(await test?.stop()).toEqual([]);
});

beforeEach(async () => {
  page = await browser.context.newPage();
});
afterEach(async () => {
  await page.close();
});

/** A peer-hosted session of `owner` (active, so it stays) with `others` joined (reserved). */
async function session(owner: string, others: string[] = []): Promise<string> {
  const token = await tokenFor(owner);
  const created = await call('POST', '/v1/rooms', { token, body: { template: 'console-lobby' } });
  expect(created.status).toBe(201);
  const roomId = created.body.room.roomId as string;
  expect((await call('PATCH', `/v1/rooms/${roomId}/members/me`, { token, body: { state: 'active' } })).status).toBe(
    200,
  );
  for (const other of others) {
    const joined = await call('POST', `/v1/rooms/${roomId}/join`, { token: await tokenFor(other), body: {} });
    expect(joined.status).toBe(200);
  }
  return roomId;
}

const openConsole = (hash = '') => page.goto(`${cloud.apiUrl}/console/${hash}`);
const roomState = () => page.getByTestId('room-state');

it('signs in by itself and lists a room created through the API by its id', async () => {
  await openConsole();
  await page.getByRole('heading', { name: 'Rooms', level: 1 }).waitFor();
  const roomId = await session('alice');
  // The list refreshes every second: the new room shows without a reload.
  await page.getByRole('link', { name: roomId }).waitFor({ timeout: 15_000 });
  await page.getByLabel('State').selectOption('spawning');
  await page.getByRole('link', { name: roomId }).waitFor({ state: 'detached', timeout: 15_000 });
}, 30_000);

it('is navigated by keyboard alone: Tab to a room of the list, Enter opens it', async () => {
  const roomId = await session('kim');
  await openConsole();
  await page.getByRole('link', { name: roomId }).waitFor();
  let focused = '';
  for (let presses = 0; presses < 60 && focused !== roomId; presses++) {
    await page.keyboard.press('Tab');
    focused = String(await page.evaluate("document.activeElement?.textContent?.trim() ?? ''"));
  }
  expect(focused).toBe(roomId);
  await page.keyboard.press('Enter');
  await page.getByRole('heading', { name: `Room ${roomId}`, level: 1 }).waitFor();
  expect(page.url()).toContain(`#/rooms/${roomId}`);
  // The page's heading has focus: the next Tab goes on from the top of the page's content.
  expect(await page.evaluate('document.activeElement?.tagName')).toBe('H1');
}, 30_000);

it("counts a reserved member's slot down and drops it when it expires", async () => {
  const roomId = await session('host');
  await openConsole(`#/rooms/${roomId}`);
  await page.locator('tr[data-member="host"]').waitFor({ timeout: 15_000 });
  // Joined once the page shows the room, so the 4 s window is not spent loading the page.
  const joined = await call('POST', `/v1/rooms/${roomId}/join`, { token: await tokenFor('bob'), body: {} });
  expect(joined.status).toBe(200);
  const bob = page.locator('tr[data-member="bob"]');
  await bob.waitFor();
  await bob
    .getByTestId('expires')
    .filter({ hasText: /^in \d s$/ })
    .waitFor();
  await bob.waitFor({ state: 'detached', timeout: 20_000 });
  await page.locator('tr[data-member="host"]').waitFor();
}, 30_000);

it('shows a room turn failed when its game server is killed', async () => {
  const created = await call('POST', '/v1/rooms', {
    token: await tokenFor('gamer'),
    body: { gameId: 'ok', version: '1' },
  });
  expect(created.status).toBe(201);
  const roomId = created.body.room.roomId as string;
  await openConsole(`#/rooms/${roomId}`);
  await page.getByTestId('room-state').filter({ hasText: 'ready' }).waitFor();
  const tasks = (cloud.fleet as unknown as { tasks: Map<string, { child: { pid: number } }> }).tasks;
  process.kill(tasks.get(`local:${roomId}`)!.child.pid, 'SIGKILL');
  await roomState().filter({ hasText: 'failed' }).waitFor({ timeout: 15_000 });
  await page.getByText('sidecar-lost').waitFor();
  // The live socket told the page: a tap of the change is listed.
  await page
    .locator('.taps li', { hasText: /state|ended: failed/ })
    .first()
    .waitFor();
}, 45_000);

it('bans an account, removes a member and closes a room only once confirmed', async () => {
  const roomId = await session('carol', ['dave']);
  await openConsole(`#/rooms/${roomId}`);
  await roomState().filter({ hasText: 'ready' }).waitFor();

  await page.getByRole('button', { name: 'Ban dave' }).click();
  const banDialog = page.getByRole('dialog', { name: 'Ban dave?' });
  await banDialog.getByLabel('Reason (for operators only)').fill('griefing');
  await banDialog.getByRole('button', { name: 'Ban account' }).click();
  await page.getByRole('status').filter({ hasText: 'dave is banned.' }).waitFor();
  const admin = await tokenFor('ops', ['admin']);
  expect((await call('GET', '/v1/admin/bans/dave', { token: admin })).body).toMatchObject({
    ban: { reason: 'griefing' },
  });

  await page.getByRole('button', { name: 'Remove dave' }).click();
  await page.getByRole('dialog', { name: 'Remove dave?' }).getByRole('button', { name: 'Remove member' }).click();
  await page.getByRole('status').filter({ hasText: 'dave was removed.' }).waitFor();
  const members = (await call('GET', `/v1/rooms/${roomId}`, { token: admin })).body.room.members;
  expect(members.map((m: { account: string }) => m.account)).not.toContain('dave');

  // Cancelled (Escape): nothing happens.
  await page.getByRole('button', { name: 'Close room' }).click();
  await page.getByRole('dialog', { name: 'Close this room?' }).waitFor();
  await page.keyboard.press('Escape');
  await page.getByRole('dialog').waitFor({ state: 'detached' });
  expect((await call('GET', `/v1/rooms/${roomId}`, { token: admin })).body.room.state).toBe('ready');

  await page.getByRole('button', { name: 'Close room' }).click();
  await page.getByRole('dialog', { name: 'Close this room?' }).getByRole('button', { name: 'Close room' }).click();
  await roomState().filter({ hasText: 'closed' }).waitFor();
  expect((await call('GET', `/v1/rooms/${roomId}`, { token: admin })).body.room.state).toBe('closed');
}, 30_000);
