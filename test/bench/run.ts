import { loadavg } from 'node:os';
import { startBaselines } from './baselines';
import { startBenchPlatform } from './bench-platform';
import {
  currentCommit,
  describeMachine,
  reportPlace,
  writeReport,
  type BenchReport,
  type ScenarioOutcome,
} from './report';
import { benchCreateToReady, summarizeCreateToReady } from './scenarios/create-to-ready';
import { benchBridge, summarizeBridge } from './scenarios/bridge';
import { benchDiscovery, summarizeDiscovery } from './scenarios/discovery';
import { benchFootprint, summarizeFootprint } from './scenarios/footprint';
import { benchGroups, summarizeGroups, type GroupsOptions } from './scenarios/groups';
import { benchHotRoom, summarizeHotRoom } from './scenarios/hot-room';
import { benchJoinLatency, summarizeJoinLatency } from './scenarios/join-latency';
import { benchLarge, summarizeLarge, type LargeOptions } from './scenarios/large';
import { benchLive, summarizeLive, type LiveOptions } from './scenarios/live';
import { benchPeer, summarizePeer, type OurFigures, type PeerOptions } from './scenarios/peer';
import { benchRequests, summarizeRequests } from './scenarios/requests';
import { benchStampede, summarizeStampede, type StampedeResult } from './scenarios/stampede';
import type { ScenarioSummary } from './summary';
import { warmUp, type WarmupResult } from './warmup';

/**
 * `npm run bench [-- [--quick] [--publish] [scenario…]]`: the named scenarios (all by
 * default: requests, join, hot-room, bridge, live, footprint, discovery, stampede, groups, large, create, peer),
 * each reported against a baseline measured in the same run; `requests` first, the DynamoDB
 * requests and capacity units of each operation. Results go to stdout, progress to
 * stderr, and the report to bench/results/latest.{json,md} (`--publish`: bench/reports/<date>/).
 */
const scenarioNames = [
  'requests',
  'join',
  'hot-room',
  'bridge',
  'live',
  'footprint',
  'discovery',
  'stampede',
  'groups',
  'large',
  'create',
  'peer',
] as const;
/** The scenarios played against one local cloud, started (and warmed) once for them all. */
const onThePlatform: readonly ScenarioName[] = [
  'requests',
  'join',
  'hot-room',
  'bridge',
  'live',
  'footprint',
  'discovery',
  'stampede',
  'groups',
  'large',
];
type ScenarioName = (typeof scenarioNames)[number];

interface Plan {
  readonly quick: boolean;
  /** Write the report to bench/reports/<date>/ (committed) instead of bench/results/latest.{json,md}. */
  readonly publish: boolean;
  readonly scenarios: ReadonlySet<ScenarioName>;
  readonly warmupMs: number;
  /** Counted runs of each operation (`sweeps`: of the sweeper's). */
  readonly requests: { readonly runs: number; readonly sweeps: number };
  readonly joinSamples: number;
  readonly hotRoom: { readonly players: readonly number[]; readonly rooms: number; readonly baselineMs: number };
  readonly createRounds: number;
  readonly stampede: { readonly players: number; readonly roomSize: number };
  readonly bridgeSamples: number;
  readonly live: LiveOptions;
  readonly footprint: {
    readonly servers: number;
    readonly playersPerRoom: number;
    readonly starts: number;
    readonly reuseSynth: boolean;
  };
  readonly peer: PeerOptions;
  readonly discovery: { readonly small: number; readonly large: number; readonly samples: number };
  readonly groups: GroupsOptions;
  readonly large: LargeOptions;
}

function plan(args: readonly string[]): Plan {
  const quick = args.includes('--quick');
  const named = args.filter((a) => !a.startsWith('--'));
  for (const name of named)
    if (!(scenarioNames as readonly string[]).includes(name))
      throw new Error(`Unknown scenario "${name}": choose from ${scenarioNames.join(', ')} (or none for all).`);
  const fromEnv = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
  return {
    quick,
    publish: args.includes('--publish'),
    scenarios: new Set((named.length > 0 ? named : scenarioNames) as ScenarioName[]),
    warmupMs: fromEnv('BENCH_WARMUP_MS', quick ? 4_000 : 8_000),
    requests: { runs: fromEnv('BENCH_COUNTED_RUNS', quick ? 5 : 15), sweeps: quick ? 3 : 5 },
    joinSamples: fromEnv('BENCH_JOINS', quick ? 150 : 500),
    hotRoom: {
      players: [64, 200],
      rooms: fromEnv('BENCH_ROOMS', quick ? 2 : 10),
      baselineMs: quick ? 1_000 : 3_000,
    },
    createRounds: fromEnv('BENCH_ROUNDS', quick ? 3 : 20),
    bridgeSamples: fromEnv('BENCH_BRIDGE', quick ? 40 : 99),
    live: {
      tapSamples: fromEnv('BENCH_TAPS', quick ? 60 : 300),
      subscribers: 1_000,
      fanoutWrites: quick ? 2 : 5,
      migrations: quick ? 2 : 5,
      replacements: quick ? 1 : 3,
    },
    peer: {
      hotRoomPlayers: [64, 200],
      hotRoomRooms: fromEnv('BENCH_ROOMS', quick ? 2 : 10),
      joins: fromEnv('BENCH_JOINS', quick ? 150 : 500),
      stampede: { players: fromEnv('BENCH_STAMPEDE', quick ? 200 : 1_000), roomSize: 10 },
    },
    footprint: { servers: quick ? 10 : 50, playersPerRoom: 4, starts: quick ? 1 : 5, reuseSynth: quick },
    stampede: { players: fromEnv('BENCH_STAMPEDE', quick ? 200 : 1_000), roomSize: 10 },
    discovery: {
      small: 100,
      large: fromEnv('BENCH_DISCOVERY_ROOMS', quick ? 10_000 : 100_000),
      samples: quick ? 100 : 300,
    },
    groups: {
      race: { rounds: quick ? 10 : 50, parties: 10, partySize: 3, solos: 20 },
      matchmaking: { players: 300, roomSize: 10, largestParty: 5 },
    },
    large: { samples: fromEnv('BENCH_LARGE_JOINS', quick ? 60 : 200) },
  };
}

type Report = <R>(result: R, summarize: (result: R) => ScenarioSummary) => R;

/** Ours, from this same run: what the peer's figures are compared with. */
interface PlatformFigures {
  readonly ours: OurFigures;
  readonly warmup?: WarmupResult;
}

/** The scenarios played against one local cloud; the DynamoDB counts before the warm-up and the timings. */
async function onThePlatformScenarios(chosen: Plan, report: Report): Promise<PlatformFigures> {
  const hotRoomJoinsPerSecond: Record<number, number> = {};
  let joinP50Ms: number | undefined;
  let stampede: StampedeResult | undefined;
  process.stderr.write('starting the local cloud…\n');
  const platform = await startBenchPlatform();
  const baselines = await startBaselines(platform.cloud.dynamodb.endpoint);
  try {
    if (chosen.scenarios.has('requests')) report(await benchRequests(platform, chosen.requests), summarizeRequests);
    const warmup = await warmUp(platform, baselines, chosen.warmupMs);
    if (chosen.scenarios.has('join'))
      joinP50Ms = report(await benchJoinLatency(platform, baselines, chosen.joinSamples), summarizeJoinLatency).join
        .p50;
    if (chosen.scenarios.has('hot-room'))
      for (const players of chosen.hotRoom.players)
        hotRoomJoinsPerSecond[players] = report(
          await benchHotRoom(platform, baselines, { ...chosen.hotRoom, players }),
          summarizeHotRoom,
        ).joinsPerSecond;
    if (chosen.scenarios.has('bridge'))
      report(await benchBridge(platform, baselines, chosen.bridgeSamples), summarizeBridge);
    if (chosen.scenarios.has('live')) report(await benchLive(platform, baselines, chosen.live), summarizeLive);
    if (chosen.scenarios.has('footprint')) report(await benchFootprint(platform, chosen.footprint), summarizeFootprint);
    // Before the stampede, which leaves the platform busy (servers starting, reads draining) for a while.
    if (chosen.scenarios.has('discovery')) report(await benchDiscovery(platform, chosen.discovery), summarizeDiscovery);
    if (chosen.scenarios.has('stampede'))
      stampede = report(await benchStampede(platform, baselines, chosen.stampede), summarizeStampede);
    if (chosen.scenarios.has('groups')) report(await benchGroups(platform, chosen.groups), summarizeGroups);
    if (chosen.scenarios.has('large')) report(await benchLarge(platform, chosen.large), summarizeLarge);
    const ours: OurFigures = {
      ...(Object.keys(hotRoomJoinsPerSecond).length > 0 ? { hotRoomJoinsPerSecond } : {}),
      ...(joinP50Ms === undefined ? {} : { joinP50Ms }),
      ...(stampede ? { stampede } : {}),
    };
    return { ours, warmup };
  } finally {
    await baselines.close();
    await platform.stop();
  }
}

async function main(): Promise<void> {
  process.env.POWERTOOLS_LOG_LEVEL ??= 'WARN';
  const chosen = plan(process.argv.slice(2));
  const loadBefore = loadavg()[0] ?? Number.NaN;
  const results: ScenarioOutcome[] = [];
  const report: Report = (result, summarize) => {
    const summary = summarize(result);
    results.push({ summary, result });
    process.stdout.write(`${summary.lines.join('\n')}\n\n`);
    return result;
  };
  const { ours, warmup }: PlatformFigures = onThePlatform.some((name) => chosen.scenarios.has(name))
    ? await onThePlatformScenarios(chosen, report)
    : { ours: {} };
  if (chosen.scenarios.has('create')) report(await benchCreateToReady(chosen.createRounds), summarizeCreateToReady);
  if (chosen.scenarios.has('peer')) report(await benchPeer(chosen.peer, ours), summarizePeer);

  const full: BenchReport = {
    date: new Date().toISOString(),
    quick: chosen.quick,
    machine: describeMachine(),
    // Other work on the machine moves every figure; the ratios less so, since both sides share it.
    loadAverage: { before: loadBefore, after: loadavg()[0] ?? Number.NaN },
    commit: currentCommit(),
    warmup,
    results,
  };
  const written = writeReport(full, reportPlace(chosen.publish, full.date));
  process.stdout.write(`results: ${written.json}, ${written.markdown}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  },
);
