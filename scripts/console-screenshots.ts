import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildConsole, launchConsoleBrowser } from '../test/helpers/console-browser';
import { jsonClient } from '../test/helpers/http';
import type { LocalCloud } from '../local/cloud';
import { fixtureGame, startTestCloud } from '../test/helpers/local-cloud';

/**
 * `npm run screenshots`: a local cloud with a few rooms, and a screenshot of each page of the
 * console in Debian's headless Chromium, written to docs/console/*.png (shown in the README).
 */
const out = join(__dirname, '..', 'docs', 'console');

async function seed(apiUrl: string): Promise<string> {
  const call = jsonClient(apiUrl);
  const token = async (account: string, scopes?: string[]) =>
    (await call('POST', '/v1/dev/tokens', { body: { account, ...(scopes ? { scopes } : {}) } })).body
      .access_token as string;
  const admin = await token('ops', ['admin']);
  const lobby = { constants: { maxMembers: 8, visibility: 'open', timeouts: { reservedMs: 60_000 } } };
  await call('PUT', '/v1/admin/templates/lobby', { token: admin, body: lobby });
  let shown = '';
  for (const [i, owner] of ['ana', 'ben', 'cyd'].entries()) {
    const created = await call('POST', '/v1/rooms', {
      token: await token(owner),
      body: { gameId: 'arena', version: '1.4.0' },
    });
    shown ||= created.body.room.roomId as string;
    for (const player of [`p${i}a`, `p${i}b`]) {
      await call('POST', `/v1/rooms/${created.body.room.roomId}/join`, { token: await token(player), body: {} });
    }
  }
  await call('POST', '/v1/rooms', { token: await token('dee'), body: { template: 'lobby' } });
  return shown;
}

/** A room whose server dies, so the history shows a failure with its reason. */
async function failOne(apiUrl: string, cloud: LocalCloud): Promise<void> {
  const call = jsonClient(apiUrl);
  const owner = (await call('POST', '/v1/dev/tokens', { body: { account: 'eve' } })).body.access_token as string;
  const created = await call('POST', '/v1/rooms', { token: owner, body: { gameId: 'arena', version: '1.4.0' } });
  const tasks = (cloud.fleet as unknown as { tasks: Map<string, { child: { pid: number } }> }).tasks;
  const pid = tasks.get(`local:${created.body.room.roomId as string}`)?.child.pid;
  if (pid) process.kill(pid, 'SIGKILL');
}

async function shoot(page: Page, name: string, hash: string, ready: string): Promise<void> {
  await page.goto(`${page.url().split('#')[0]}${hash}`);
  await page.getByRole('heading', { level: 1, name: ready }).waitFor();
  // One refresh after the first answer, so every table is filled.
  await page.waitForTimeout(1_500);
  await page.screenshot({ path: join(out, `${name}.png`), fullPage: true });
  process.stdout.write(`docs/console/${name}.png\n`);
}

async function main(): Promise<void> {
  buildConsole();
  mkdirSync(out, { recursive: true });
  // The game reports a build in `inited`, so the catalog's build table has a row.
  const game = { binary: fixtureGame, args: ['ok', '--protocol=1f2e3d4c5b6a7988'], maxPlayers: 16 };
  const test = await startTestCloud([{ gameId: 'arena', version: '1.4.0', configuration: game }]);
  const browser = await launchConsoleBrowser();
  try {
    const roomId = await seed(test.cloud.apiUrl);
    await failOne(test.cloud.apiUrl, test.cloud);
    const page = await browser.context.newPage();
    await page.goto(`${test.cloud.apiUrl}/console/`);
    await shoot(page, 'rooms', '#/rooms', 'Rooms');
    await shoot(page, 'room', `#/rooms/${roomId}`, `Room ${roomId}`);
    await shoot(page, 'servers', '#/servers', 'Servers');
    await shoot(page, 'queues', '#/queues', 'Queues');
    await shoot(page, 'catalog', '#/catalog', 'Catalog');
    await shoot(page, 'logs', '#/logs', 'Logs');
    await page.setViewportSize({ width: 375, height: 740 });
    await shoot(page, 'rooms-phone', '#/rooms', 'Rooms');
  } finally {
    await browser.close();
    await test.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
