import { createHash } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand } from '@aws-sdk/client-sqs';
import { platform as lambdaPlatform } from '../../../lambdas/dependencies';
import { processControllerEvents } from '../../../lambdas/queue/controller-events';
import { sweep } from '../../../lambdas/schedule/room-sweeper';
import { keepPools } from '../../../lambdas/schedule/pool-keeper';
import { readyStandby } from '../../helpers/local-cloud';
import { controllerQueueEvent, SidecarChannelDouble } from '../../helpers/sidecar-channel';
import { benchGame, roomSize, type BenchPlatform, type BenchRoom } from '../bench-platform';
import { tally, type RequestTally } from '../capacity';
import { phase } from '../progress';
import type { DynamoRequest } from '../request-counter';
import { median, meets, type Target } from '../stats';
import type { HeadlineRow, ScenarioSummary } from '../summary';

/**
 * What each operation costs in DynamoDB, counted on the platform's own client: the requests
 * in a row a caller waits for (the critical path), all requests, and the capacity units
 * billed. Latency on this machine depends on its load; these counts do not, and they are what
 * a deployed operation waits for and pays.
 */
export interface OperationCost {
  readonly operation: string;
  readonly runs: number;
  /** Each figure the median over the runs, on its own. */
  readonly median: RequestTally;
  /** The requests of the run with the median count, in the order they were sent. */
  readonly actions: readonly string[];
  /** Requests whose capacity was computed from item sizes (test/bench/request-counter.ts). */
  readonly computed: number;
  readonly total: number;
}

export interface CountCheck {
  readonly operation: string;
  readonly figure: 'sequential' | 'requests';
  readonly target: Target;
  readonly value: number;
  readonly meetsTarget: boolean;
}

export interface RequestsResult {
  readonly scenario: 'requests';
  readonly operations: readonly OperationCost[];
  readonly checks: readonly CountCheck[];
  /** What the last counted sweeper run found: its cost grows with the live rooms. */
  readonly lastSweep: { readonly live: number; readonly closed: number; readonly failed: number } | undefined;
}

/** The bounds on the counts. */
const countTargets: readonly { operation: string; figure: CountCheck['figure']; atMost: number }[] = [
  { operation: 'join', figure: 'sequential', atMost: 1 },
  { operation: 'create (warm)', figure: 'sequential', atMost: 2 },
  { operation: 'joined', figure: 'requests', atMost: 2 },
  { operation: 'GET room', figure: 'requests', atMost: 1 },
];

const warmVersion = 'warm';

export function costOf(operation: string, runs: readonly (readonly DynamoRequest[])[]): OperationCost {
  const tallies = runs.map((requests) => tally(requests));
  const pick = (field: keyof RequestTally) => median(tallies.map((t) => t[field]));
  const middle = pick('requests');
  const typical = runs.find((requests) => requests.length === middle) ?? runs[0] ?? [];
  return {
    operation,
    runs: runs.length,
    median: { sequential: pick('sequential'), requests: middle, rcu: pick('rcu'), wcu: pick('wcu') },
    actions: [...typical].sort((a, b) => a.start - b.start).map((r) => r.action + (r.error ? ` (${r.error})` : '')),
    computed: runs.flat().filter((r) => r.computed).length,
    total: runs.flat().length,
  };
}

/** Counts `runs` runs of one operation; `once` throws on an answer other than the expected one. */
async function countRuns(
  platform: BenchPlatform,
  operation: string,
  runs: number,
  once: (run: number, headers: Record<string, string>) => Promise<void>,
  between?: (run: number) => Promise<void>,
): Promise<OperationCost> {
  return phase(`requests: ${operation}`, runs, async (progress) => {
    const counted: (readonly DynamoRequest[])[] = [];
    for (let run = 0; run < runs; run++) {
      await between?.(run);
      counted.push((await platform.counter.measure((headers) => once(run, headers))).requests);
      progress.add();
    }
    return costOf(operation, counted);
  });
}

function expectStatus(operation: string, response: { status: number; body: any }, ...expected: number[]) {
  if (!expected.includes(response.status))
    throw new Error(`${operation} answered ${response.status}: ${JSON.stringify(response.body)}`);
}

/** A game's `joined` as its sidecar forwards it, handed to the real consumer. */
async function joinedMessages(room: BenchRoom, keys: readonly string[]) {
  const p = lambdaPlatform();
  const { QueueUrl: replyTo } = await p.sqs.send(new CreateQueueCommand({ QueueName: 'bench-requests-replies' }));
  if (!replyTo) throw new Error('the SQS emulator returned no queue URL');
  const channel = new SidecarChannelDouble();
  const send = async (run: number) => {
    const body = await channel.seal({
      type: 'rpc',
      roomId: room.roomId,
      sentAt: new Date().toISOString(),
      correlationId: `bench-joined-${run}`,
      replyTo,
      method: 'joined',
      // What the sidecar forwards: the key's SHA-256, never the key (docs/game-server-protocol.md).
      params: {
        keyHash: createHash('sha256')
          .update(keys[run] as string, 'utf8')
          .digest('hex'),
      },
    });
    const { batchItemFailures } = await processControllerEvents(controllerQueueEvent([room.roomId], [body]));
    if (batchItemFailures.length > 0) throw new Error('the consumer failed a forwarded joined');
  };
  return { send, close: () => p.sqs.send(new DeleteQueueCommand({ QueueUrl: replyTo })).then(() => undefined) };
}

async function countRoomOperations(platform: BenchPlatform, runs: number): Promise<OperationCost[]> {
  const room = await platform.createRoom();
  const tokens = await platform.tokens('requests', 2 * runs);
  const keys: string[] = [];
  const path = `/v1/rooms/${room.roomId}`;
  const join = await countRuns(platform, 'join', runs, async (run, headers) => {
    const response = await platform.call('POST', `${path}/join`, { token: tokens[run], headers });
    expectStatus('join', response, 200);
    keys.push(response.body.reservation.key as string);
  });
  const messages = await joinedMessages(room, keys);
  const joined = await countRuns(platform, 'joined', runs, (run) => messages.send(run)).finally(messages.close);
  const get = await countRuns(platform, 'GET room', runs, async (_, headers) =>
    expectStatus('GET', await platform.call('GET', path, { token: room.creatorToken, headers }), 200),
  );
  const patch = await countRuns(platform, 'PATCH room', runs, async (run, headers) => {
    const body = { properties: { custom: { round: run } } };
    expectStatus('PATCH', await platform.call('PATCH', path, { token: room.creatorToken, body, headers }), 200);
  });
  // The open room above has free slots: the matchmaker finds it.
  const findOrCreate = await countRuns(platform, 'find-or-create', runs, async (run, headers) => {
    const token = tokens[runs + run];
    const response = await platform.call('POST', '/v1/matchmaking/join', { token, body: benchGame, headers });
    expectStatus('find-or-create', response, 200, 201);
  });
  return [join, joined, get, patch, findOrCreate];
}

async function countCreates(platform: BenchPlatform, runs: number): Promise<OperationCost[]> {
  const tokens = await platform.tokens('requests-create', 2 * runs);
  const create = (version: string, token: string | undefined, headers: Record<string, string>) =>
    platform.call('POST', '/v1/rooms', {
      token,
      body: { gameId: benchGame.gameId, version, maxPlayers: roomSize },
      headers,
    });
  const cold = await countRuns(
    platform,
    'create (cold)',
    runs,
    async (run, headers) => expectStatus('cold create', await create(benchGame.version, tokens[run], headers), 201),
    () => platform.releaseRooms(),
  );
  await platform.configureVersion(warmVersion, roomSize, 1);
  const pool = { gameId: benchGame.gameId, version: warmVersion, region: platform.cloud.config.region };
  const warm = await countRuns(
    platform,
    'create (warm)',
    runs,
    async (run, headers) => expectStatus('warm create', await create(warmVersion, tokens[runs + run], headers), 201),
    async () => {
      // The pool keeper's run (a sweep's, locally) starts the standby server the next create takes.
      await keepPools();
      if ((await readyStandby(pool, 1, 60_000)).length === 0) throw new Error('no standby server within 60 s');
    },
  );
  await platform.configureVersion(warmVersion, roomSize, 0);
  await platform.releaseRooms();
  return [cold, warm];
}

export async function benchRequests(
  platform: BenchPlatform,
  options: { runs: number; sweeps: number },
): Promise<RequestsResult> {
  const onRooms = await countRoomOperations(platform, options.runs);
  let lastSweep: RequestsResult['lastSweep'];
  const sweeper = await countRuns(platform, 'sweeper run', options.sweeps, async () => {
    const swept = await sweep();
    lastSweep = { live: swept.live.length, closed: swept.closed.length, failed: swept.failed.length };
  });
  const creates = await countCreates(platform, options.runs);
  const operations = [...onRooms, ...creates, sweeper];
  const checks = countTargets.map(({ operation, figure, atMost }): CountCheck => {
    const value = operations.find((o) => o.operation === operation)?.median[figure] ?? Number.NaN;
    const target: Target = { kind: 'atMost', value: atMost };
    return { operation, figure, target, value, meetsTarget: meets(value, target) };
  });
  return { scenario: 'requests', operations, checks, lastSweep };
}

const units = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));

function rowOf(cost: OperationCost, check: CountCheck | undefined): HeadlineRow {
  const { median: m } = cost;
  return {
    scenario: `DynamoDB: ${cost.operation}`,
    figure: `${m.sequential} sequential of ${m.requests} in all, ${units(m.rcu)} RCU, ${units(m.wcu)} WCU`,
    baseline: check ? `a bound on the ${check.figure === 'sequential' ? 'sequential' : 'total'} requests` : 'no bound',
    ratio: check ? check.value : m.sequential,
    ...(check ? { target: check.target } : {}),
    reading: `median of ${cost.runs} runs: ${cost.actions.join(', ') || 'no request'}`,
  };
}

export function summarizeRequests(result: RequestsResult): ScenarioSummary {
  const pad = (text: string, width: number) => text.padEnd(width);
  const checkOf = (operation: string) => result.checks.find((c) => c.operation === operation);
  const computed = result.operations.reduce((sum, o) => sum + o.computed, 0);
  const total = result.operations.reduce((sum, o) => sum + o.total, 0);
  return {
    id: 'requests',
    title: 'DynamoDB requests and capacity per operation',
    lines: [
      "DynamoDB requests per operation, counted on the platform's client (median of the runs, each figure on its own)",
      `  ${pad('operation', 16)}${pad('sequential', 12)}${pad('requests', 10)}${pad('RCU', 8)}${pad('WCU', 8)}requests sent (median run)`,
      ...result.operations.map(
        (o) =>
          `  ${pad(o.operation, 16)}${pad(String(o.median.sequential), 12)}${pad(String(o.median.requests), 10)}${pad(units(o.median.rcu), 8)}${pad(units(o.median.wcu), 8)}${o.actions.join(', ')}`,
      ),
      ...result.checks.map(
        (c) =>
          `  CHECK ${pad(c.operation, 16)}${c.figure} ${c.value} (target ≤ ${c.target.value}): ${c.meetsTarget ? 'meets target' : 'MISSES target'}`,
      ),
      `  capacity as DynamoDB Local reported it, except ${computed} of ${total} requests computed from item sizes (refused conditions, transactions)`,
      "  a create counts its own requests only (the game's inited is the consumer's); a cold create's include its reads while it waits for inited, so they grow with the game's start",
      `  the sweeper's grow with the rooms: it found ${result.lastSweep?.live ?? '?'} live rooms`,
    ],
    rows: result.operations.map((o) => rowOf(o, checkOf(o.operation))),
    charts: [],
  };
}
