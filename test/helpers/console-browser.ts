import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`; .ci/run installs it when missing). */
const chromiumPath = '/usr/bin/chromium';

/** Headless, no sandbox (CI runs as root), nothing that reaches the internet on its own. */
const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Builds console/dist as `npm run build:console` does (the local cloud serves it at /console/). */
export function buildConsole(): void {
  const root = join(__dirname, '..', '..');
  const built = spawnSync('npx', ['vite', 'build', '--config', 'console/vite.config.mts', '--logLevel', 'warn'], {
    cwd: root,
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`vite build failed: ${built.stdout}${built.stderr}`);
}

export interface ConsoleBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Chromium with a fresh profile, at the console's desktop size unless told otherwise. */
export async function launchConsoleBrowser(
  viewport: { width: number; height: number } = { width: 1280, height: 800 },
): Promise<ConsoleBrowser> {
  if (!existsSync(chromiumPath)) throw new Error(`${chromiumPath} is missing: apt-get install chromium`);
  const profile = mkdtempSync(join(tmpdir(), 'roomkeeper-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumArgs,
    viewport,
  });
  return {
    context,
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
