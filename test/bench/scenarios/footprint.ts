import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { bundleSizes, type BundleSize } from '../../../cdk/lib/bundle-sizes';
import { freePort } from '../../../local/free-port';
import type { BenchPlatform, BenchRoom } from '../bench-platform';
import { forEachLimited, phase } from '../progress';
import { describeLatency, ratio, summarize, type LatencySummary } from '../stats';
import type { ScenarioSummary } from '../summary';

export interface FootprintResult {
  readonly scenario: 'footprint';
  readonly servers: number;
  /** Each sidecar's resident memory (MB), sampled while its room had traffic. */
  readonly sidecarRssMb: LatencySummary;
  readonly sidecarsTotalMb: number;
  /** A bare Node.js process (`node -e` with a timer) on the same Node, same run (MB). */
  readonly bareNodeRssMb: number;
  /** Players whose seat was confirmed through the sidecars while sampling. */
  readonly confirmed: number;
  readonly bundles:
    | { readonly synthSeconds: number; readonly sizes: readonly BundleSize[]; readonly fromCdkOut?: boolean }
    | { readonly error: string };
  /** `npm start` until it says it is ready (DynamoDB Local, SQS emulator, table, queues, API). */
  readonly localStart: LatencySummary;
}

const root = join(__dirname, '../../..');

/** Resident set size in MB from the text of /proc/<pid>/status; undefined when it has none. */
export function residentMb(status: string): number | undefined {
  const match = /^VmRSS:\s+(\d+)\s+kB$/m.exec(status);
  return match ? Number(match[1]) / 1024 : undefined;
}

/** A live process's resident memory in MB; undefined once it is gone. */
export function rssOf(pid: number): number | undefined {
  try {
    return residentMb(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return undefined;
  }
}

async function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
  try {
    await new Promise((resolve) => setTimeout(resolve, 500));
    return rssOf(child.pid as number) ?? Number.NaN;
  } finally {
    child.kill('SIGKILL');
  }
}

/** Seats `players` players in a room through its game server, so its sidecar carries `joined` traffic. */
async function seatPlayers(platform: BenchPlatform, room: BenchRoom, tokens: string[]): Promise<WebSocket[]> {
  const sockets: WebSocket[] = [];
  for (const token of tokens) {
    const reserved = await platform.call('POST', `/v1/rooms/${room.roomId}/join`, { token });
    if (reserved.status !== 200) continue;
    const { key, host, ports } = reserved.body.reservation as { key: string; host: string; ports: number[] };
    const socket = new WebSocket(`ws://${host}:${ports[0]}`);
    await new Promise<void>((resolve) => {
      socket.once('open', () => socket.send(key));
      socket.once('message', () => resolve());
      socket.once('error', () => resolve());
    });
    sockets.push(socket);
  }
  return sockets;
}

/**
 * `npm start` as a user runs it (`node --import tsx local/main.ts`), in its own process:
 * from the spawn until it prints that it is ready, then stopped.
 */
async function timeLocalStart(): Promise<number> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/main.ts', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  try {
    return await new Promise<number>((resolve, reject) => {
      let output = '';
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('local cloud is ready')) resolve(performance.now() - started);
      });
      child.once('exit', (code) => reject(new Error(`npm start exited with ${code} before it was ready`)));
    });
  } finally {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

/** The bundles of the last `npm run synth` (cdk.out), if there is one: quick runs skip a synth. */
function lastSynthBundles(): FootprintResult['bundles'] | undefined {
  const assembly = join(root, 'cdk.out');
  if (!existsSync(join(assembly, 'Roomkeeper-dev.template.json'))) return undefined;
  return { synthSeconds: Number.NaN, sizes: bundleSizes(assembly, 'Roomkeeper-dev.template.json'), fromCdkOut: true };
}

function synthesizeBundles(): FootprintResult['bundles'] {
  const outdir = mkdtempSync(join(tmpdir(), 'rk-bench-cdk-'));
  try {
    const started = performance.now();
    const synth = spawnSync('npx', ['cdk', 'synth', '--quiet', '--output', outdir, '-c', 'stage=dev'], {
      cwd: root,
      encoding: 'utf8',
    });
    if (synth.status !== 0) return { error: `cdk synth failed (exit ${synth.status})` };
    return {
      synthSeconds: (performance.now() - started) / 1000,
      sizes: bundleSizes(outdir, 'Roomkeeper-dev.template.json'),
    };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

/**
 * What Roomkeeper costs in memory and bytes: each controller sidecar's RSS while `servers`
 * rooms run and take players (each seat confirmed through its sidecar), against a bare Node
 * process; every Lambda function's bundle, from a real `cdk synth`; and how long the local
 * cloud takes to start.
 */
export async function benchFootprint(
  platform: BenchPlatform,
  options: { servers: number; playersPerRoom: number; starts: number; reuseSynth: boolean },
): Promise<FootprintResult> {
  const rooms = await phase(`footprint: ${options.servers} rooms`, options.servers, async (progress) => {
    const created: BenchRoom[] = [];
    await forEachLimited(
      Array.from({ length: options.servers }, (_, i) => i),
      4,
      async () => {
        created.push(await platform.createRoom());
        progress.add();
      },
    );
    return created;
  });
  const tokens = await platform.tokens('footprint', options.servers * options.playersPerRoom);
  const sockets = await phase('footprint: players seated through the sidecars', tokens.length, async (progress) => {
    const all: WebSocket[] = [];
    await forEachLimited(rooms, 8, async (room, r) => {
      const mine = tokens.slice(r * options.playersPerRoom, (r + 1) * options.playersPerRoom);
      all.push(...(await seatPlayers(platform, room, mine)));
      progress.add(mine.length);
    });
    return all;
  });
  // Status probes keep running meanwhile; sample after a few of them.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const samples = platform.cloud.fleet.pids.flatMap((pid) => {
    const mb = rssOf(pid);
    return mb === undefined ? [] : [mb];
  });
  for (const socket of sockets) socket.terminate();
  // Let the games' `left` calls be answered before their sidecars stop and delete their reply queues.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  await platform.releaseRooms();
  const bareNodeRssMb = await bareNodeRss();

  const bundles =
    (options.reuseSynth ? lastSynthBundles() : undefined) ??
    (await phase('footprint: cdk synth for the bundle sizes', undefined, async () => synthesizeBundles()));
  const starts = await phase('footprint: npm start start-ups', options.starts, async (progress) => {
    const measured: number[] = [];
    for (let i = 0; i < options.starts; i++) {
      measured.push(await timeLocalStart());
      progress.add();
    }
    return measured;
  });
  return {
    scenario: 'footprint',
    servers: samples.length,
    sidecarRssMb: summarize(samples),
    sidecarsTotalMb: samples.reduce((sum, mb) => sum + mb, 0),
    bareNodeRssMb,
    confirmed: sockets.length,
    bundles,
    localStart: summarize(starts),
  };
}

export function summarizeFootprint(result: FootprintResult): ScenarioSummary {
  const mb = (value: number) => `${value.toFixed(1)} MB`;
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(0)} KB`;
  const sizes = 'sizes' in result.bundles ? result.bundles.sizes : [];
  const code = summarize(sizes.map((s) => s.codeBytes));
  return {
    id: 'footprint',
    title: 'Footprint',
    lines: [
      `footprint: ${result.servers} sidecars, ${result.confirmed} players seated through them`,
      `  sidecar RSS                    median ${mb(result.sidecarRssMb.p50)}  p90 ${mb(result.sidecarRssMb.p90)}  max ${mb(result.sidecarRssMb.max)}   all ${result.servers}: ${mb(result.sidecarsTotalMb)}`,
      `  bare node process RSS          ${mb(result.bareNodeRssMb)}   (reference, same run: a sidecar is ${ratio(result.sidecarRssMb.p50, result.bareNodeRssMb).toFixed(2)} × that)`,
      'error' in result.bundles
        ? `  Lambda bundles                 not measured: ${result.bundles.error}`
        : `  Lambda bundles                 ${sizes.length} functions from ${result.bundles.fromCdkOut ? 'the last npm run synth (cdk.out)' : `cdk synth (${result.bundles.synthSeconds.toFixed(1)} s)`}: code median ${kb(code.p50)}, largest ${kb(code.max)} (${sizes[0]?.function ?? ''}), smallest ${kb(Math.min(...sizes.map((s) => s.codeBytes)))}`,
      `  npm start until ready          ${describeLatency(result.localStart)}`,
    ],
    rows: [
      {
        scenario: 'footprint: sidecar memory',
        figure: `median ${mb(result.sidecarRssMb.p50)} RSS`,
        baseline: `bare node process ${mb(result.bareNodeRssMb)}`,
        ratio: ratio(result.sidecarRssMb.p50, result.bareNodeRssMb),
        reading: 'lower is better',
      },
    ],
    charts: [
      {
        id: 'footprint-memory',
        title: `Resident memory: a controller sidecar under traffic vs a bare Node process`,
        unit: 'MB',
        bars: [
          { label: 'sidecar RSS, median', value: result.sidecarRssMb.p50, series: 'roomkeeper' },
          { label: 'sidecar RSS, max', value: result.sidecarRssMb.max, series: 'roomkeeper' },
          { label: 'bare node -e', value: result.bareNodeRssMb, series: 'baseline' },
        ],
      },
      ...(sizes.length > 0
        ? [
            {
              id: 'footprint-bundles',
              title: 'Lambda bundle sizes (index.js, KB)',
              unit: 'KB',
              bars: sizes.map((s) => ({
                label: s.function.replace(/[A-F0-9]{8}$/, ''),
                value: s.codeBytes / 1000,
                series: 'roomkeeper' as const,
              })),
            },
          ]
        : []),
      {
        id: 'footprint-start',
        title: 'npm start: until the local cloud is ready',
        unit: 'ms',
        bars: [
          { label: 'start-up, p50', value: result.localStart.p50, series: 'roomkeeper' },
          { label: 'start-up, max', value: result.localStart.max, series: 'roomkeeper' },
        ],
      },
    ],
  };
}
