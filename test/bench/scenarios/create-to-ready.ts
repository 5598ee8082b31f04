import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pair } from 'zeromq';
import { bundle } from '../../../containers/build';
import { startLocalCloud } from '../../../local/cloud';
import { freePort } from '../../../local/free-port';
import { jsonClient } from '../../helpers/http';
import { phase } from '../progress';
import { describeLatency, formatMs, formatRatio, ratio, summarize, type LatencySummary } from '../stats';
import type { ScenarioSummary } from '../summary';

const sampleGame = join(__dirname, '../../../containers/sample-game/bin/sample-game');

export interface CreateToReadyResult {
  readonly scenario: 'create';
  readonly rounds: number;
  /** POST /v1/rooms until 201 (the game server called `inited`). */
  readonly create: LatencySummary;
  /** The sample game's own start-up to `inited`, alone, same run. */
  readonly gameAlone: LatencySummary;
  /** Median create-to-ready minus the game's own start: what the platform adds. */
  readonly platformShareMs: number;
  /** create p50 ÷ game-alone p50. */
  readonly ratio: number;
}

/**
 * The game's own start-up, measured without the platform: the sample game started by hand
 * against a PAIR socket we bind, from spawn to its `inited` request.
 */
async function gameStartToInited(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-'));
  const endpoint = `ipc://${dir}/game.sock`;
  const socket = new Pair({ linger: 0, receiveTimeout: 30_000 });
  await socket.bind(endpoint);
  const started = performance.now();
  const game = spawn(sampleGame, [endpoint, String(await freePort())], {
    env: {
      PATH: process.env.PATH,
      room_settings: '{}',
      server_settings: '{}',
      game_max_players: '8',
      discovery_services: '{}',
      login_access_token: '',
    },
    stdio: 'ignore',
  });
  try {
    for (;;) {
      const [frame] = await socket.receive();
      const message = JSON.parse(String(frame));
      if (message.method === 'inited') return performance.now() - started;
    }
  } finally {
    game.kill('SIGKILL');
    socket.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function benchCreateToReady(rounds: number): Promise<CreateToReadyResult> {
  await bundle('sample-game');
  const baseline = await phase('create: game start alone', rounds, async (progress) => {
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) {
      samples.push(await gameStartToInited());
      progress.add();
    }
    return samples;
  });

  const cloud = await startLocalCloud({ port: 0, gameOutput: 'ignore', rateLimits: { createsPerMinute: 1000 } });
  try {
    const call = jsonClient(cloud.apiUrl);
    const token = (await call('POST', '/v1/dev/tokens', { body: { account: 'bench' } })).body.access_token;
    // One warm-up room: DynamoDB Local's JVM is slow for its first requests.
    await call('POST', '/v1/rooms', { token, body: { gameId: 'sample', version: '1.0.0' } });
    await cloud.fleet.stopAll('bench warm-up done');
    const samples = await phase('create: rooms to ready', rounds, async (progress) => {
      const measured: number[] = [];
      for (let i = 0; i < rounds; i++) {
        const started = performance.now();
        const response = await call('POST', '/v1/rooms', { token, body: { gameId: 'sample', version: '1.0.0' } });
        if (response.status !== 201)
          throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`);
        measured.push(performance.now() - started);
        progress.add();
        await cloud.fleet.stopAll('bench round done');
      }
      return measured;
    });
    const create = summarize(samples);
    const gameAlone = summarize(baseline);
    return {
      scenario: 'create',
      rounds,
      create,
      gameAlone,
      platformShareMs: create.p50 - gameAlone.p50,
      ratio: ratio(create.p50, gameAlone.p50),
    };
  } finally {
    await cloud.stop();
  }
}

export function summarizeCreateToReady(result: CreateToReadyResult): ScenarioSummary {
  return {
    id: 'create',
    title: 'Create to ready',
    lines: [
      `create-to-ready: ${result.rounds} rooms of the sample game, one after another`,
      `  POST /v1/rooms → 201 (ready)   ${describeLatency(result.create)}`,
      `  game start → inited (alone)    ${describeLatency(result.gameAlone)}   (baseline, same run)`,
      `  platform share                 ${formatMs(result.platformShareMs)}   RATIO create p50 / game p50 ${formatRatio(result.ratio)}`,
    ],
    rows: [
      {
        scenario: 'create to ready',
        figure: `p50 ${formatMs(result.create.p50)}`,
        baseline: `game start → inited p50 ${formatMs(result.gameAlone.p50)}`,
        ratio: result.ratio,
        reading: 'lower is better',
      },
    ],
    charts: [],
  };
}
