import type { BenchPlatform, BenchRoom } from '../bench-platform';
import { tally } from '../capacity';
import { forEachLimited, phase } from '../progress';
import type { DynamoRequest } from '../request-counter';
import {
  describeErrors,
  describeLatency,
  describeTarget,
  formatMs,
  formatRatio,
  median,
  meets,
  ratio,
  summarize,
  verdict,
  type LatencySummary,
  type Target,
} from '../stats';
import type { ScenarioSummary } from '../summary';

/**
 * Large sessions (docs/sessions.md "Large sessions"): a join's latency and write cost must not
 * grow with the session. Sequential joins over HTTP into a session holding 1,000 members are
 * timed against joins into one holding 10, interleaved in the same run (the baseline: the same
 * join where the session is small); each timed join is counted (test/bench/request-counter.ts)
 * for its write capacity and its DynamoDB time, and its member leaves again (untimed) so the
 * size holds. WCU per join is also counted at 100 members.
 */
export const largeJoinTarget: Target = { kind: 'atMost', value: 1.3 };

export interface LargeOptions {
  /** Timed joins at each of the two sizes compared. */
  readonly samples: number;
}

/** What the joins at one session size cost. */
export interface SizeFigures {
  readonly members: number;
  readonly join: LatencySummary;
  /** Median write capacity units per join, counted by AWS's rules. */
  readonly wcuPerJoin: number;
  readonly rcuPerJoin: number;
  /** Median write capacity units per join by DynamoDB action (the claim's transaction, the rate log, …). */
  readonly wcuByAction: Readonly<Record<string, number>>;
  /** Median time of a join in each DynamoDB action (ms), and outside all of them (HTTP, handler). */
  readonly breakdownMs: Readonly<Record<string, number>>;
  readonly errors: number;
  readonly errorStatuses: Record<string, number>;
}

export interface LargeResult {
  readonly scenario: 'large';
  readonly samples: number;
  readonly sizes: readonly SizeFigures[];
  /** join p50 at 1,000 members ÷ join p50 at 10 members. */
  readonly ratio: number;
  readonly target: Target;
  readonly meetsTarget: boolean;
}

const template = 'bench-large';
const capacity = 1_000;

interface Sample {
  readonly elapsedMs: number;
  readonly status: number;
  readonly code?: string;
  readonly requests: readonly DynamoRequest[];
}

/** One counted join of `token` into `room`, then (untimed) its leave. */
async function sampleJoin(platform: BenchPlatform, room: BenchRoom, token: string): Promise<Sample> {
  const measured = await platform.counter.measure(async (headers) => {
    const started = performance.now();
    const response = await platform.call('POST', `/v1/rooms/${room.roomId}/join`, { token, headers, body: {} });
    return { elapsedMs: performance.now() - started, status: response.status, code: response.body?.error?.code };
  });
  if (measured.result.status === 200) {
    const left = await platform.call('DELETE', `/v1/rooms/${room.roomId}/members/me`, { token });
    if (left.status !== 204) throw new Error(`leave answered ${left.status}: ${JSON.stringify(left.body)}`);
  }
  return { ...measured.result, requests: measured.requests };
}

function figuresOf(members: number, samples: readonly Sample[]): SizeFigures {
  const ok = samples.filter((s) => s.status === 200);
  const errorStatuses: Record<string, number> = {};
  for (const s of samples.filter((x) => x.status !== 200)) {
    const key = `${s.status} ${s.code ?? ''}`.trim();
    errorStatuses[key] = (errorStatuses[key] ?? 0) + 1;
  }
  const actions = [...new Set(ok.flatMap((s) => s.requests.map((r) => r.action)))];
  const timeIn = (s: Sample, action: string) =>
    s.requests.filter((r) => r.action === action).reduce((sum, r) => sum + (r.end - r.start), 0);
  const wcuIn = (s: Sample, action: string) =>
    s.requests.filter((r) => r.action === action).reduce((sum, r) => sum + r.wcu, 0);
  const breakdownMs: Record<string, number> = {};
  const wcuByAction: Record<string, number> = {};
  for (const action of actions) {
    breakdownMs[action] = median(ok.map((s) => timeIn(s, action)));
    wcuByAction[action] = median(ok.map((s) => wcuIn(s, action)));
  }
  // Requests run side by side (the account checks beside the claim): the time outside all of them.
  breakdownMs['outside DynamoDB (HTTP, handler)'] = median(ok.map((s) => s.elapsedMs - coveredMs(s.requests)));
  const tallies = ok.map((s) => tally(s.requests));
  return {
    members,
    join: summarize(ok.map((s) => s.elapsedMs)),
    wcuPerJoin: median(tallies.map((t) => t.wcu)),
    rcuPerJoin: median(tallies.map((t) => t.rcu)),
    wcuByAction,
    breakdownMs,
    errors: samples.length - ok.length,
    errorStatuses,
  };
}

/** How long at least one of `requests` was in flight. */
function coveredMs(requests: readonly DynamoRequest[]): number {
  let covered = 0;
  let reach = Number.NEGATIVE_INFINITY;
  for (const r of [...requests].sort((a, b) => a.start - b.start)) {
    covered += Math.max(0, r.end - Math.max(r.start, reach));
    reach = Math.max(reach, r.end);
  }
  return covered;
}

/** A large session of `members` (its creator one of them), its slots bar one for the samples. */
async function sessionOf(platform: BenchPlatform, name: string, members: number): Promise<BenchRoom> {
  const [creatorToken] = await platform.tokens(`${name}-creator`, 1);
  const made = await platform.call('POST', '/v1/rooms', { token: creatorToken, body: { template } });
  if (made.status !== 201) throw new Error(`create answered ${made.status}: ${JSON.stringify(made.body)}`);
  const room = { roomId: made.body.room.roomId as string, creatorToken: creatorToken! };
  await grow(platform, room, name, 1, members);
  return room;
}

/** Joins fresh accounts until the session holds `to` members (50 at a time, untimed). */
async function grow(platform: BenchPlatform, room: BenchRoom, name: string, from: number, to: number): Promise<void> {
  if (to <= from) return;
  const tokens = await platform.tokens(`${name}-fill-${from}`, to - from);
  await phase(`large: fill ${name} to ${to}`, tokens.length, (progress) =>
    forEachLimited(tokens, 50, async (token) => {
      const response = await platform.call('POST', `/v1/rooms/${room.roomId}/join`, { token, body: {} });
      if (response.status !== 200) throw new Error(`fill join answered ${response.status}`);
      progress.add();
    }),
  );
}

export async function benchLarge(platform: BenchPlatform, options: LargeOptions): Promise<LargeResult> {
  const admin = await platform.call('POST', '/v1/dev/tokens', {
    body: { account: 'bench-large-admin', scopes: ['admin'], ttlS: 86_400 },
  });
  const put = await platform.call('PUT', `/v1/admin/templates/${template}`, {
    token: admin.body.access_token,
    body: {
      constants: {
        maxMembers: capacity,
        visibility: 'open',
        capabilities: ['large'],
        timeouts: { reservedMs: 3_600_000, sessionEmptyMs: null },
      },
    },
  });
  if (put.status !== 200) throw new Error(`template answered ${put.status}: ${JSON.stringify(put.body)}`);
  // Each session holds its size less one: the sampled join takes the last slot and gives it back.
  const small = await sessionOf(platform, 'large-small', 9);
  const big = await sessionOf(platform, 'large-big', 99);
  const tokens = await platform.tokens('large-sample', 2 * options.samples + 40);
  const at100 = await phase('large: joins at 100 members', 20, async (progress) => {
    const samples: Sample[] = [];
    for (const token of tokens.slice(0, 20)) {
      samples.push(await sampleJoin(platform, big, token));
      progress.add();
    }
    return samples;
  });
  await grow(platform, big, 'large-big', 99, capacity - 1);
  const at10: Sample[] = [];
  const at1000: Sample[] = [];
  await phase(`large: ${options.samples} joins at 10 and at 1,000 members, interleaved`, 2 * options.samples, (p) =>
    (async () => {
      for (let i = 0; i < options.samples; i++) {
        const order = i % 2 === 0 ? [small, big] : [big, small];
        for (const room of order) {
          const sample = await sampleJoin(platform, room, tokens[20 + 2 * i + (room === small ? 0 : 1)]!);
          (room === small ? at10 : at1000).push(sample);
          p.add();
        }
      }
    })(),
  );
  const sizes = [figuresOf(10, at10), figuresOf(100, at100), figuresOf(1_000, at1000)];
  const value = ratio(sizes[2]!.join.p50, sizes[0]!.join.p50);
  return {
    scenario: 'large',
    samples: options.samples,
    sizes,
    ratio: value,
    target: largeJoinTarget,
    meetsTarget: meets(value, largeJoinTarget),
  };
}

export function summarizeLarge(result: LargeResult): ScenarioSummary {
  const [at10, , at1000] = result.sizes;
  const breakdown = (s: SizeFigures) =>
    Object.entries(s.breakdownMs)
      .map(([part, ms]) => `${part} ${formatMs(ms)}`)
      .join(', ');
  return {
    id: 'large',
    title: 'Large sessions',
    lines: [
      `large sessions: sequential joins over HTTP into one session per size, ${result.samples} timed at 10 and at 1,000 members (interleaved)`,
      ...result.sizes.map(
        (s) =>
          `  at ${String(s.members).padStart(5)} members   ${describeLatency(s.join)}   WCU/join ${s.wcuPerJoin}   RCU/join ${s.rcuPerJoin}   errors ${describeErrors(s.errors, s.errorStatuses)}`,
      ),
      ...result.sizes.map((s) => `  median parts at ${s.members}: ${breakdown(s)}`),
      ...result.sizes.map(
        (s) =>
          `  median WCU at ${s.members}: ${Object.entries(s.wcuByAction)
            .map(([action, wcu]) => `${action} ${wcu}`)
            .join(', ')}`,
      ),
      `  RATIO join p50 at 1,000 / at 10  ${formatRatio(result.ratio)}   target ${describeTarget(result.target)}   ${verdict(result.meetsTarget)}`,
    ],
    rows: [
      {
        scenario: 'large-session join',
        figure: `p50 at 1,000 members ${formatMs(at1000!.join.p50)}`,
        baseline: `p50 at 10 members ${formatMs(at10!.join.p50)}`,
        ratio: result.ratio,
        target: result.target,
        reading: 'lower is better',
      },
      {
        scenario: 'large-session WCU per join',
        figure: `${at1000!.wcuPerJoin} at 1,000 members`,
        baseline: `${at10!.wcuPerJoin} at 10 members`,
        ratio: ratio(at1000!.wcuPerJoin, at10!.wcuPerJoin),
        reading: '1.00: flat',
      },
    ],
    charts: [
      {
        id: 'large-session-join',
        title: 'Join latency into a large session, by its size (same run)',
        unit: 'ms',
        marker: {
          label: `target: ${describeTarget(result.target)} × p50 at 10`,
          value: result.target.value * at10!.join.p50,
        },
        bars: result.sizes.flatMap((s) => [
          { label: `p50 at ${s.members}`, value: s.join.p50, series: s.members === 10 ? 'baseline' : 'roomkeeper' },
          { label: `p90 at ${s.members}`, value: s.join.p90, series: s.members === 10 ? 'baseline' : 'roomkeeper' },
        ]),
      },
    ],
  };
}
