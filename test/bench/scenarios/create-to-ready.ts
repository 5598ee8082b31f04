import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, createReadStream, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pair } from 'zeromq';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import { gameServerConfigurationBodySchema } from '../../../core/gameservers/schema';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { createSqsClient } from '../../../core/infra/aws-clients';
import { bundle } from '../../../containers/build';
import { startLocalCloud, type LocalCloud } from '../../../local/cloud';
import type { LocalFleet } from '../../../local/fleet';
import { freePort } from '../../../local/free-port';
import { startBaselines, type Baselines } from '../baselines';
import { startGameRoundTrips, startSqsRoundTrips, startZeroMqRoundTrips } from '../raw-parts';
import { keepPools } from '../../../lambdas/schedule/pool-keeper';
import { benchClient, type BenchCall } from '../http-client';
import { readyStandby } from '../../helpers/local-cloud';
import { phase } from '../progress';
import {
  describeLatency,
  describeTarget,
  formatMs,
  formatRatio,
  meets,
  ratio,
  summarize,
  type LatencySummary,
  type Target,
  verdict,
} from '../stats';
import type { BarChart, ScenarioSummary } from '../summary';

const sampleGame = join(__dirname, '../../../containers/sample-game/bin/sample-game');

export interface CreateToReadyResult {
  readonly scenario: 'create';
  readonly rounds: number;
  /** POST /v1/rooms until 201 (the game server called `inited`). */
  readonly create: LatencySummary;
  /** The sample game's own start-up to `inited`, alone, same run. */
  readonly gameAlone: LatencySummary;
  /** Each raw part of a create, timed alone in the same run. */
  readonly parts: {
    readonly sidecar: LatencySummary;
    readonly game: LatencySummary;
    readonly sqsRoundTrip: LatencySummary;
    readonly conditionalWrite: LatencySummary;
  };
  /** The sum of the parts' p50s. */
  readonly sumOfPartsMs: number;
  /** Median create-to-ready minus the game's own start: what the platform adds. */
  readonly platformShareMs: number;
  /** create p50 ÷ the sum of its parts' p50s. */
  readonly ratio: number;
  /** create p50 ÷ game-alone p50. */
  readonly gameRatio: number;
  /** The same create served by the warm pool (`standby: 1`): a ready server handed over with `assign`. */
  readonly warm: {
    readonly create: LatencySummary;
    /**
     * Its raw parts, each alone: "a few milliseconds plus one round trip to the game", i.e.
     * the caller's HTTP request, two conditional writes one after the other (the take and the
     * hand-over) and one raw round trip to a game across processes (test/bench/raw-parts.ts
     * `startGameRoundTrips`). The SQS and ZeroMQ round trips inside one process are
     * informational, not in the sum.
     */
    readonly parts: {
      readonly httpRoundTrip: LatencySummary;
      /** Two conditional UpdateItems, one after the other. */
      readonly conditionalWrites: LatencySummary;
      readonly gameRoundTrip: LatencySummary;
      readonly sqsRoundTrip: LatencySummary;
      readonly zeroMqRoundTrip: LatencySummary;
    };
    /** HTTP + two conditional writes + round trip to the game, p50s summed. */
    readonly sumOfPartsMs: number;
    /** warm create p50 ÷ the sum of its parts' p50s. */
    readonly ratio: number;
    readonly target: Target;
    readonly meetsTarget: boolean;
    /** warm create p50 − the round trip to the game's p50: what the platform adds to the call it must make. */
    readonly beyondGameMs: number;
    /** cold create p50 ÷ warm create p50. */
    readonly speedup: number;
  };
}

const sampleKey = { gameId: 'sample', version: '1.0.0' };

/** The "a few milliseconds plus one round trip to the game", with room for noise. */
export const warmCreateTarget: Target = { kind: 'atMost', value: 1.5 };

/**
 * Rounds run first and thrown away, parts and creates alike: the first requests of a JVM
 * (DynamoDB Local) and of fresh processes are many times slower, on both sides of a ratio.
 */
const discardedRounds = 2;

/** A player's access token from the local cloud's development token route. */
async function playerToken(call: BenchCall, account: string): Promise<string> {
  const response = await call('POST', '/v1/dev/tokens', { body: { account } });
  if (response.status !== 200 && response.status !== 201)
    throw new Error(`minting a token for ${account} answered ${response.status}`);
  return response.body.access_token as string;
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

/** A game that only says it started: it writes to `fifo`, then waits to be stopped. */
function stubGame(dir: string, fifo: string): string {
  const path = join(dir, 'stub-game.sh');
  writeFileSync(path, `#!/bin/sh\nprintf started > '${fifo}'\nexec sleep 300\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A controller sidecar's start, alone: the local fleet spawns the real sidecar (as it does
 * for a room) for a game that only signals that it was started. From the spawn call until
 * the game runs: the sidecar's process start, its reply queue and its bound socket, and the
 * game's launch. No room exists, so its reports go nowhere.
 */
async function sidecarStart(fleet: LocalFleet, round: number, region: string): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'rk-bench-sidecar-'));
  const fifo = join(dir, 'started');
  execFileSync('mkfifo', [fifo]);
  const configuration: GameServerConfiguration = {
    ...gameServerConfigurationBodySchema.parse({ binary: stubGame(dir, fifo), maxPlayers: 8 }),
    spawnTimeoutS: 30,
    gameId: 'bench-sidecar',
    version: '1.0.0',
    updatedAt: new Date().toISOString(),
  };
  const signalled = new Promise<void>((resolve, reject) => {
    const stream = createReadStream(fifo);
    stream.once('data', () => {
      stream.destroy();
      resolve();
    });
    stream.once('error', reject);
  });
  const started = performance.now();
  const placement = await fleet.spawn({
    roomId: `bench-sidecar-${round}-${Date.now()}`,
    region,
    configuration,
    roomSettings: {},
    maxPlayers: 8,
    loginAccessToken: 'bench',
  });
  try {
    await signalled;
    return performance.now() - started;
  } finally {
    await fleet.stop(placement.taskId, 'bench: sidecar start measured');
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `round` `discardedRounds + rounds` times and keeps the last `rounds` results. */
async function keptRounds<T>(label: string, rounds: number, round: (i: number) => Promise<T>): Promise<T[]> {
  return phase(label, discardedRounds + rounds, async (progress) => {
    const kept: T[] = [];
    for (let i = 0; i < discardedRounds + rounds; i++) {
      const result = await round(i);
      if (i >= discardedRounds) kept.push(result);
      progress.add();
    }
    return kept;
  });
}

interface ColdRound {
  readonly sidecar: number;
  readonly sqsTrip: number;
  readonly update: number;
  readonly create: number;
}

/** Cold rounds: each raw part alone, then a create of the sample game until it is ready. */
async function coldRounds(cloud: LocalCloud, baselines: Baselines, sqs: SQSClient, rounds: number) {
  const call = benchClient(cloud.apiUrl);
  const token = await playerToken(call, 'bench');
  const sqsRoundTrip = await startSqsRoundTrips(sqs, 'bench-create-round-trip');
  return keptRounds('create: cold rounds (raw parts, then a create)', rounds, async (i): Promise<ColdRound> => {
    const sidecar = await sidecarStart(cloud.fleet, i, cloud.config.region);
    const sqsTrip = await sqsRoundTrip();
    const update = await baselines.update();
    const started = performance.now();
    const response = await call('POST', '/v1/rooms', { token, body: sampleKey });
    if (response.status !== 201)
      throw new Error(`create answered ${response.status}: ${JSON.stringify(response.body)}`);
    const create = performance.now() - started;
    await cloud.fleet.stopAll('bench round done');
    return { sidecar, sqsTrip, update, create };
  });
}

/** Gives the sample game a warm pool of one. */
async function poolTheSample(call: BenchCall): Promise<void> {
  const admin = (await call('POST', '/v1/dev/tokens', { body: { account: 'bench-admin', scopes: ['admin'] } })).body
    .access_token;
  const current = await call('GET', '/v1/admin/games/sample/versions/1.0.0', { token: admin });
  const { gameId: _g, version: _v, updatedAt: _u, taskDefinition: _t, ...body } = current.body.configuration;
  const pooled = await call('PUT', '/v1/admin/games/sample/versions/1.0.0', {
    token: admin,
    body: { ...body, standby: 1 },
  });
  if (pooled.status !== 200) throw new Error(`pooling the sample game answered ${pooled.status}`);
}

interface WarmRound {
  readonly echo: number;
  readonly writes: number;
  readonly game: number;
  readonly sqsTrip: number;
  readonly zeroMq: number;
  readonly create: number;
}

/**
 * Warm rounds: each waits for a ready standby server and a quiet moment (no start running
 * beside the measured create), times the parts, then the create.
 */
async function warmRounds(cloud: LocalCloud, baselines: Baselines, sqs: SQSClient, rounds: number) {
  const call = benchClient(cloud.apiUrl);
  await poolTheSample(call);
  const sqsRoundTrip = await startSqsRoundTrips(sqs, 'bench-create-warm-round-trip');
  const zeroMq = await startZeroMqRoundTrips();
  // "A few milliseconds plus one round trip to the game", that round trip made of real
  // processes (an idle relay and a game) and none of the platform.
  const gameTrips = await startGameRoundTrips(sqs, {
    sqsEndpoint: cloud.sqs.endpoint,
    region: 'us-east-1',
    calls: 'bench-create-game-calls',
    answers: 'bench-create-game-answers',
  });
  try {
    return await keptRounds('create: rooms from the warm pool', rounds, async (i): Promise<WarmRound> => {
      // The pool keeper's run (a sweep's, locally) starts the standby server this round takes.
      await keepPools();
      const ready = await readyStandby({ ...sampleKey, region: cloud.config.region }, 1, 60_000);
      if (ready.length === 0) throw new Error('no standby server became ready within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 300));
      const echo = await baselines.echo();
      const writes = (await baselines.update()) + (await baselines.update());
      const parts = { echo, writes, game: await gameTrips.roundTrip() };
      const informational = { sqsTrip: await sqsRoundTrip(), zeroMq: await zeroMq.roundTrip() };
      // Each round's room is another player's, as in a game's traffic: one player creating
      // 20 rooms a minute is what the create rate limit is for, not what is measured here.
      const player = await playerToken(call, `bench-player-${i}`);
      const started = performance.now();
      const response = await call('POST', '/v1/rooms', { token: player, body: sampleKey });
      const create = performance.now() - started;
      if (response.status !== 201)
        throw new Error(`warm create answered ${response.status}: ${JSON.stringify(response.body)}`);
      await cloud.fleet.stop(`local:${response.body.room.roomId as string}`, 'bench round done');
      return { ...parts, ...informational, create };
    });
  } finally {
    zeroMq.close();
    await gameTrips.close();
  }
}

function warmResult(runs: readonly WarmRound[], coldP50: number): CreateToReadyResult['warm'] {
  const create = summarize(runs.map((r) => r.create));
  const parts = {
    httpRoundTrip: summarize(runs.map((r) => r.echo)),
    conditionalWrites: summarize(runs.map((r) => r.writes)),
    gameRoundTrip: summarize(runs.map((r) => r.game)),
    sqsRoundTrip: summarize(runs.map((r) => r.sqsTrip)),
    zeroMqRoundTrip: summarize(runs.map((r) => r.zeroMq)),
  };
  const sum = parts.httpRoundTrip.p50 + parts.conditionalWrites.p50 + parts.gameRoundTrip.p50;
  const value = ratio(create.p50, sum);
  return {
    create,
    parts,
    sumOfPartsMs: sum,
    ratio: value,
    target: warmCreateTarget,
    meetsTarget: meets(value, warmCreateTarget),
    beyondGameMs: create.p50 - parts.gameRoundTrip.p50,
    speedup: ratio(coldP50, create.p50),
  };
}

async function gameAloneRounds(rounds: number): Promise<number[]> {
  return keptRounds('create: game start alone', rounds, () => gameStartToInited());
}

export async function benchCreateToReady(rounds: number): Promise<CreateToReadyResult> {
  await bundle('sample-game');
  const gameAlone = summarize(await gameAloneRounds(rounds));
  const cloud = await startLocalCloud({
    port: 0,
    gameOutput: 'ignore',
    rateLimits: { createsPerMinute: 1000 },
    // As deployed (once a minute): the warm rounds run the pool keeper themselves, so no sweep
    // or refill runs beside a measured create or its parts.
    sweepIntervalMs: 60_000,
  });
  const baselines = await startBaselines(cloud.dynamodb.endpoint);
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: cloud.sqs.endpoint });
  try {
    const cold = await coldRounds(cloud, baselines, sqs, rounds);
    const warm = await warmRounds(cloud, baselines, sqs, rounds);
    const create = summarize(cold.map((r) => r.create));
    const parts = {
      sidecar: summarize(cold.map((r) => r.sidecar)),
      game: gameAlone,
      sqsRoundTrip: summarize(cold.map((r) => r.sqsTrip)),
      conditionalWrite: summarize(cold.map((r) => r.update)),
    };
    const sumOfParts = parts.sidecar.p50 + gameAlone.p50 + parts.sqsRoundTrip.p50 + parts.conditionalWrite.p50;
    return {
      scenario: 'create',
      rounds,
      create,
      gameAlone,
      parts,
      sumOfPartsMs: sumOfParts,
      platformShareMs: create.p50 - gameAlone.p50,
      ratio: ratio(create.p50, sumOfParts),
      gameRatio: ratio(create.p50, gameAlone.p50),
      warm: warmResult(warm, create.p50),
    };
  } finally {
    sqs.destroy();
    await baselines.close();
    await cloud.stop();
  }
}

function coldLines(result: CreateToReadyResult): string[] {
  const { parts } = result;
  return [
    `create-to-ready: ${result.rounds} rooms of the sample game, one after another (${discardedRounds} rounds before them discarded)`,
    `  POST /v1/rooms → 201 (ready)   ${describeLatency(result.create)}   ${(1000 / result.create.mean).toFixed(1)} rooms/s one after another, errors 0 (any other answer stops the run)`,
    `  parts, each alone (same run):`,
    `    sidecar start → game launched ${describeLatency(parts.sidecar)}`,
    `    game start → first ZeroMQ msg ${describeLatency(parts.game)}`,
    `    SQS send + receive            ${describeLatency(parts.sqsRoundTrip)}`,
    `    conditional UpdateItem        ${describeLatency(parts.conditionalWrite)}`,
    `    sum of p50s                   ${formatMs(result.sumOfPartsMs)}`,
    `  RATIO create p50 / sum of parts ${formatRatio(result.ratio)}   (create p50 / game alone ${formatRatio(result.gameRatio)}; the platform adds ${formatMs(result.platformShareMs)} to the game's own start)`,
  ];
}

function warmLines(result: CreateToReadyResult): string[] {
  const { warm } = result;
  return [
    `warm pool (standby: 1): ${result.rounds} rooms, each handed a ready standby server`,
    `  POST /v1/rooms → 201 (ready)   ${describeLatency(warm.create)}`,
    `  parts, each alone (same run): a few milliseconds plus one round trip to the game`,
    `    loopback HTTP round trip      ${describeLatency(warm.parts.httpRoundTrip)}`,
    `    2 conditional UpdateItems     ${describeLatency(warm.parts.conditionalWrites)}   (one after the other)`,
    `    round trip to a game          ${describeLatency(warm.parts.gameRoundTrip)}`,
    `      (SQS → idle relay process → ZeroMQ PAIR ipc → game process → SQS, long polls both ways)`,
    `    sum of p50s                   ${formatMs(warm.sumOfPartsMs)}`,
    `  for information, inside one process: SQS send + receive ${describeLatency(warm.parts.sqsRoundTrip)}`,
    `                                       ZeroMQ request + answer ${describeLatency(warm.parts.zeroMqRoundTrip)}`,
    `  RATIO warm create p50 / sum of parts ${formatRatio(warm.ratio)}   target ${describeTarget(warm.target)}: ${verdict(warm.meetsTarget)}`,
    `  the platform adds ${formatMs(warm.beyondGameMs)} beyond the round trip to the game   (cold p50 / warm p50 ${formatRatio(warm.speedup)})`,
  ];
}

function createCharts(result: CreateToReadyResult): BarChart[] {
  const { parts, warm } = result;
  return [
    {
      id: 'create',
      title: 'Create to ready vs its raw parts, each timed alone (p50, same run)',
      unit: 'ms',
      bars: [
        { label: 'POST /v1/rooms → ready', value: result.create.p50, series: 'roomkeeper' },
        { label: 'sum of the parts', value: result.sumOfPartsMs, series: 'baseline' },
        { label: 'sidecar start → game launched', value: parts.sidecar.p50, series: 'baseline' },
        { label: 'game start → first ZeroMQ message', value: parts.game.p50, series: 'baseline' },
        { label: 'SQS send + receive', value: parts.sqsRoundTrip.p50, series: 'baseline' },
        { label: 'conditional UpdateItem', value: parts.conditionalWrite.p50, series: 'baseline' },
      ],
    },
    {
      id: 'create-warm',
      title: 'Create from the warm pool vs a few milliseconds plus one round trip to a game (p50, same run)',
      unit: 'ms',
      marker: {
        label: `target: ${describeTarget(warm.target)} × sum of the parts`,
        value: warm.target.value * warm.sumOfPartsMs,
      },
      bars: [
        { label: 'POST /v1/rooms → ready (warm)', value: warm.create.p50, series: 'roomkeeper' },
        { label: 'sum of the parts', value: warm.sumOfPartsMs, series: 'baseline' },
        { label: 'loopback HTTP round trip', value: warm.parts.httpRoundTrip.p50, series: 'baseline' },
        { label: '2 conditional UpdateItems', value: warm.parts.conditionalWrites.p50, series: 'baseline' },
        { label: 'round trip to a game (SQS, relay, ZeroMQ)', value: warm.parts.gameRoundTrip.p50, series: 'baseline' },
      ],
    },
  ];
}

export function summarizeCreateToReady(result: CreateToReadyResult): ScenarioSummary {
  const { warm } = result;
  return {
    id: 'create',
    title: 'Spawn: create to ready',
    lines: [...coldLines(result), ...warmLines(result)],
    rows: [
      {
        scenario: 'spawn: create to ready',
        figure: `p50 ${formatMs(result.create.p50)}`,
        baseline: `sum of its raw parts ${formatMs(result.sumOfPartsMs)}`,
        ratio: result.ratio,
        reading: 'lower is better; 1 = no overhead beyond the parts',
      },
      {
        scenario: 'spawn: create from the warm pool',
        figure: `p50 ${formatMs(warm.create.p50)}`,
        baseline: `HTTP + 2 UpdateItems + one round trip to a game ${formatMs(warm.sumOfPartsMs)}`,
        ratio: warm.ratio,
        target: warm.target,
        reading: `lower is better; the platform adds ${formatMs(warm.beyondGameMs)} beyond the round trip to the game`,
      },
    ],
    charts: createCharts(result),
  };
}
