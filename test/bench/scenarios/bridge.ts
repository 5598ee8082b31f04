import { WebSocket } from 'ws';
import { createSqsClient } from '../../../core/infra/aws-clients';
import type { Baselines } from '../baselines';
import type { BenchPlatform } from '../bench-platform';
import { phase } from '../progress';
import { startSqsRoundTrips, startWebSocketRoundTrips, startZeroMqRoundTrips } from '../raw-parts';
import {
  describeErrors,
  describeLatency,
  formatMs,
  formatRatio,
  perSecond,
  ratio,
  summarize,
  type LatencySummary,
} from '../stats';
import type { ScenarioSummary } from '../summary';

export interface BridgeResult {
  readonly scenario: 'bridge';
  readonly confirmations: number;
  /** Registration key sent on an open WebSocket → the game's `welcome`, which it sends once `joined` was answered. */
  readonly joined: LatencySummary;
  /** Confirmations per second of time spent confirming (one after another). */
  readonly throughputPerSecond: number;
  readonly errors: number;
  readonly errorStatuses: Record<string, number>;
  readonly parts: {
    readonly webSocket: LatencySummary;
    readonly zeroMq: LatencySummary;
    readonly sqs: LatencySummary;
    readonly conditionalWrite: LatencySummary;
  };
  readonly sumOfPartsMs: number;
  /** joined p50 ÷ the sum of the parts' p50s. */
  readonly ratio: number;
}

interface GameMessage {
  readonly type: string;
  readonly code?: string;
}

/** Opens a player's connection to the game server, untimed: the bench times what follows. */
function connect(host: string, port: number): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://${host}:${port}`);
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends the key and waits for the game's first answer: `welcome` once the platform confirmed the slot. */
function register(socket: WebSocket, key: string): Promise<GameMessage> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no answer from the game within 10 s')), 10_000);
    socket.once('message', (data) => {
      clearTimeout(timer);
      resolve(JSON.parse(data.toString()) as GameMessage);
    });
    socket.send(key);
  });
}

/**
 * A player's seat confirmed through the bridge, timed at the player: the sample game gets
 * the registration key on its WebSocket, calls `joined` over ZeroMQ, the sidecar forwards it
 * through SQS to the platform's consumer, which confirms the member in the session document
 * (a conditional write) and answers through the sidecar's reply queue; the game then says
 * `welcome`. Each join first reserves the slot over HTTP (untimed). The parts, timed alone
 * in the same run, interleaved: one loopback WebSocket message and its echo, one ZeroMQ
 * round trip, one SQS send + receive, one conditional UpdateItem.
 */
export async function benchBridge(
  platform: BenchPlatform,
  baselines: Baselines,
  samples: number,
): Promise<BridgeResult> {
  const room = await platform.createRoom();
  const tokens = await platform.tokens('bridge', samples);
  const sqs = createSqsClient({ region: 'us-east-1', sqsEndpoint: platform.cloud.sqs.endpoint });
  const sqsRoundTrip = await startSqsRoundTrips(sqs, 'bench-bridge-round-trip');
  const zeroMq = await startZeroMqRoundTrips();
  const webSocket = await startWebSocketRoundTrips();
  const sockets: WebSocket[] = [];
  const joined: number[] = [];
  const parts = { webSocket: [] as number[], zeroMq: [] as number[], sqs: [] as number[], updates: [] as number[] };
  const errorStatuses: Record<string, number> = {};
  let errors = 0;
  const fail = (status: string) => {
    errors++;
    errorStatuses[status] = (errorStatuses[status] ?? 0) + 1;
  };
  try {
    await phase('bridge: joined round trips', samples, async (progress) => {
      for (const token of tokens) {
        parts.webSocket.push(await webSocket.roundTrip());
        parts.zeroMq.push(await zeroMq.roundTrip());
        parts.sqs.push(await sqsRoundTrip());
        parts.updates.push(await baselines.update());
        const reserved = await platform.call('POST', `/v1/rooms/${room.roomId}/join`, { token });
        if (reserved.status !== 200) {
          fail(`${reserved.status} ${reserved.body?.error?.code ?? ''}`.trim());
          continue;
        }
        const { key, host, ports } = reserved.body.reservation as { key: string; host: string; ports: number[] };
        const socket = await connect(host, ports[0] as number);
        sockets.push(socket);
        const started = performance.now();
        const answer = await register(socket, key);
        const elapsed = performance.now() - started;
        if (answer.type === 'welcome') joined.push(elapsed);
        else fail(`game said ${answer.type} ${answer.code ?? ''}`.trim());
        progress.add();
      }
    });
  } finally {
    for (const socket of sockets) socket.terminate();
    // Let the game's `left` calls be answered before its sidecar stops and deletes its reply queue.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    zeroMq.close();
    await webSocket.close();
    sqs.destroy();
    await platform.releaseRooms();
  }
  const summarized = {
    webSocket: summarize(parts.webSocket),
    zeroMq: summarize(parts.zeroMq),
    sqs: summarize(parts.sqs),
    conditionalWrite: summarize(parts.updates),
  };
  const sumOfPartsMs =
    summarized.webSocket.p50 + summarized.zeroMq.p50 + summarized.sqs.p50 + summarized.conditionalWrite.p50;
  const joinedSummary = summarize(joined);
  return {
    scenario: 'bridge',
    confirmations: joined.length,
    joined: joinedSummary,
    throughputPerSecond: perSecond(
      joined.length,
      joined.reduce((sum, ms) => sum + ms, 0),
    ),
    errors,
    errorStatuses,
    parts: summarized,
    sumOfPartsMs,
    ratio: ratio(joinedSummary.p50, sumOfPartsMs),
  };
}

export function summarizeBridge(result: BridgeResult): ScenarioSummary {
  const { parts } = result;
  return {
    id: 'bridge',
    title: 'Bridge: a joined round trip',
    lines: [
      `bridge: ${result.confirmations} seats confirmed one after another (player → game → sidecar → SQS → platform → DynamoDB → back)`,
      `  key sent → welcome             ${describeLatency(result.joined)}   ${result.throughputPerSecond.toFixed(0)}/s   errors ${describeErrors(result.errors, result.errorStatuses)}`,
      `  parts, each alone (same run, interleaved):`,
      `    WebSocket message + echo     ${describeLatency(parts.webSocket)}`,
      `    ZeroMQ round trip (ipc)      ${describeLatency(parts.zeroMq)}`,
      `    SQS send + receive           ${describeLatency(parts.sqs)}`,
      `    conditional UpdateItem       ${describeLatency(parts.conditionalWrite)}`,
      `    sum of p50s                  ${formatMs(result.sumOfPartsMs)}`,
      `  RATIO joined p50 / sum of parts ${formatRatio(result.ratio)}`,
    ],
    rows: [
      {
        scenario: 'bridge: joined round trip',
        figure: `p50 ${formatMs(result.joined.p50)}`,
        baseline: `WebSocket + ZeroMQ + SQS + UpdateItem ${formatMs(result.sumOfPartsMs)}`,
        ratio: result.ratio,
        reading: 'lower is better; the path crosses SQS twice (request and reply)',
      },
    ],
    charts: [
      {
        id: 'bridge',
        title: 'A joined round trip vs its raw parts (p50, same run)',
        unit: 'ms',
        bars: [
          { label: 'key sent → welcome', value: result.joined.p50, series: 'roomkeeper' },
          { label: 'sum of the parts', value: result.sumOfPartsMs, series: 'baseline' },
          { label: 'WebSocket message + echo', value: parts.webSocket.p50, series: 'baseline' },
          { label: 'ZeroMQ round trip', value: parts.zeroMq.p50, series: 'baseline' },
          { label: 'SQS send + receive', value: parts.sqs.p50, series: 'baseline' },
          { label: 'conditional UpdateItem', value: parts.conditionalWrite.p50, series: 'baseline' },
        ],
      },
    ],
  };
}
