import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pair } from 'zeromq';
import { bundle } from '../../containers/build';
import { startLocalCloud } from '../../local/cloud';
import { freePort } from '../../local/free-port';
import { jsonClient } from '../helpers/http';
import { formatMs, median, percentile } from './stats';

const sampleGame = join(__dirname, '../../containers/sample-game/bin/sample-game');

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

export async function benchCreateToReady(rounds = 20): Promise<void> {
  process.stdout.write(`create-to-ready: ${rounds} rooms of the sample game, one after another\n`);
  await bundle('sample-game');
  const baseline: number[] = [];
  for (let i = 0; i < rounds; i++) baseline.push(await gameStartToInited());

  const cloud = await startLocalCloud({ port: 0, gameOutput: 'ignore', rateLimits: { createsPerMinute: 1000 } });
  try {
    const call = jsonClient(cloud.apiUrl);
    const token = (await call('POST', '/v1/dev/tokens', { body: { account: 'bench' } })).body.access_token;
    // One warm-up room: DynamoDB Local's JVM is slow for its first requests.
    await call('POST', '/v1/rooms', { token, body: { gameId: 'sample', version: '1.0.0' } });
    const samples: number[] = [];
    for (let i = 0; i < rounds; i++) {
      const started = performance.now();
      const response = await call('POST', '/v1/rooms', { token, body: { gameId: 'sample', version: '1.0.0' } });
      if (response.status !== 201)
        throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`);
      samples.push(performance.now() - started);
      process.stdout.write('.');
      await cloud.fleet.stopAll('bench round done');
    }
    process.stdout.write('\n');
    const create = median(samples);
    const game = median(baseline);
    process.stdout.write(
      [
        `  POST /v1/rooms → 201 (ready)   median ${formatMs(create)}   p90 ${formatMs(percentile(samples, 90))}`,
        `  game start → inited (alone)    median ${formatMs(game)}   (baseline, same run)`,
        `  platform share                 ${formatMs(create - game)}  (${(((create - game) / create) * 100).toFixed(0)}% of create-to-ready; ratio create/game ${(create / game).toFixed(2)})`,
        '',
      ].join('\n'),
    );
  } finally {
    await cloud.stop();
  }
}
