import { readFileSync } from 'node:fs';
import { WebSocket } from 'ws';
import type { ServerFrame } from '../../../core/live/messages';
import type { Baselines } from '../baselines';
import { benchGame, type BenchPlatform } from '../bench-platform';
import type { JsonResponse } from '../../helpers/http';
import { openBenchSocket, tapAtLeast, type BenchSocket } from '../live-socket';
import { forEachLimited, phase } from '../progress';
import { startWebSocketRoundTrips } from '../raw-parts';
import {
  describeLatency,
  describeTarget,
  formatMs,
  formatRatio,
  meets,
  pairwiseSum,
  ratio,
  summarize,
  verdict,
  type LatencySummary,
  type Target,
} from '../stats';
import type { ScenarioSummary } from '../summary';

export interface LiveOptions {
  readonly tapSamples: number;
  readonly subscribers: number;
  readonly fanoutWrites: number;
  readonly migrations: number;
  readonly replacements: number;
}

/** The issue's targets: taps within 3 × (UpdateItem + WebSocket echo), 1,000 subscribers' p99 within 2 s, … */
export const liveTargets = {
  tapRatio: { kind: 'atMost', value: 3 } as Target,
  fanoutP99Ms: 2_000,
  /** … a new arbiter seen by all within hostTimeoutMs + 1 s, a dedicated replacement ready within 2 s. */
  migrationSlackMs: 1_000,
  replacementMs: 2_000,
} as const;
/** The migration template's `hostTimeoutMs`; the host pings every quarter of it. */
const hostTimeoutMs = 2_000;
const templates = { taps: 'bench-live', migrate: 'bench-live-migrate', kept: 'bench-live-kept' } as const;
/** How long a subscriber waits for a tap before it counts as missing. */
const tapTimeoutMs = 10_000;

export interface TapLatencyResult {
  readonly samples: number;
  readonly missing: number;
  /** The write's HTTP answer → the tap at the other member's socket. */
  readonly tap: LatencySummary;
  readonly baseline: { readonly update: LatencySummary; readonly echo: LatencySummary; readonly sum: LatencySummary };
  readonly ratioP50: number;
  readonly ratioP99: number;
}

export interface FanoutResult {
  readonly subscribers: number;
  readonly writes: number;
  readonly delivered: number;
  readonly missing: number;
  /** Each delivered tap, from its write's HTTP answer. */
  readonly tap: LatencySummary;
}

export interface MigrationRun {
  /** The kill → the last member whose GET shows the new epoch after a tap naming `host`; NaN if one never did. */
  readonly allSeenMs: number;
  readonly membersSeen: number;
  /** Members whose claim won (exactly 1 when the election holds). */
  readonly winners: number;
  readonly claims: number;
  /** The preferred successor's first claim after the kill: the `retryAfterMs` it was told (NaN if none). */
  readonly successorWaitMs: number;
}

export interface ReplacementRun {
  /** The game killed → the tap of the replacement write (state spawning, epoch + 1). */
  readonly killToDetectedMs: number;
  /** That tap → the tap after which the room reads ready at the new epoch. */
  readonly detectedToReadyMs: number;
}

export interface LiveResult {
  readonly scenario: 'live';
  readonly taps: TapLatencyResult;
  readonly fanout: FanoutResult;
  readonly migration: { readonly hostTimeoutMs: number; readonly runs: readonly MigrationRun[] };
  readonly replacement: { readonly runs: readonly ReplacementRun[]; readonly failures: number };
}

type Call = BenchPlatform['call'];

function must(response: JsonResponse, status: number, what: string): JsonResponse {
  if (response.status !== status)
    throw new Error(`${what} answered ${response.status}: ${JSON.stringify(response.body)}`);
  return response;
}

async function mint(call: Call, account: string, scopes: string[] = []): Promise<string> {
  const minted = await call('POST', '/v1/dev/tokens', { body: { account, scopes, ttlS: 86_400 } });
  return must(minted, 200, 'dev token').body.access_token as string;
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function putTemplates(platform: BenchPlatform): Promise<void> {
  const admin = await mint(platform.call, 'bench-live-admin', ['admin']);
  const put = async (name: string, body: unknown) =>
    must(await platform.call('PUT', `/v1/admin/templates/${name}`, { token: admin, body }), 200, `template ${name}`);
  // Nobody pings in the tap sessions: their host must not be judged silent while they run.
  await put(templates.taps, { constants: { maxMembers: 2, visibility: 'open', hostTimeoutMs: 600_000 } });
  await put(templates.migrate, { constants: { maxMembers: 6, visibility: 'open', migrateHost: true, hostTimeoutMs } });
  await put(templates.kept, { ...benchGame, constants: { maxMembers: 2, visibility: 'open', migrateHost: true } });
}

interface PeerSession {
  readonly roomId: string;
  /** The creator's (the host's) first. */
  readonly tokens: readonly string[];
}

/** A peer-hosted session of `members` fresh accounts, every one of them active. */
async function peerSession(platform: BenchPlatform, template: string, prefix: string, members: number) {
  const tokens = await platform.tokens(prefix, members);
  const created = await platform.call('POST', '/v1/rooms', { token: tokens[0], body: { template } });
  const roomId = must(created, 201, 'create').body.room.roomId as string;
  for (const token of tokens.slice(1))
    must(await platform.call('POST', `/v1/rooms/${roomId}/join`, { token, body: {} }), 200, 'join');
  for (const token of tokens) {
    const active = await platform.call('PATCH', `/v1/rooms/${roomId}/members/me`, { token, body: { state: 'active' } });
    must(active, 200, 'PATCH members/me');
  }
  return { roomId, tokens } satisfies PeerSession;
}

async function subscribedSocket(platform: BenchPlatform, token: string, roomId: string): Promise<BenchSocket> {
  const socket = await openBenchSocket(platform.cloud.liveUrl, token);
  await socket.subscribe(roomId);
  return socket;
}

/** One member's write of the room's properties; resolves with its change number and when its answer came. */
async function writeProperties(call: Call, token: string, roomId: string, round: number) {
  const answer = await call('PATCH', `/v1/rooms/${roomId}`, { token, body: { properties: { custom: { round } } } });
  const answeredAt = performance.now();
  return { changeNumber: must(answer, 200, 'PATCH room').body.room.changeNumber as number, answeredAt };
}

/**
 * Figure 1: a member PATCHes the room's properties, another member's socket is subscribed;
 * from the write's HTTP answer to the tap at that socket (a tap that came first counts
 * negative). Each sample is interleaved with one baseline round, a conditional UpdateItem
 * and one loopback WebSocket echo, the order alternating.
 */
async function benchTaps(platform: BenchPlatform, baselines: Baselines, samples: number): Promise<TapLatencyResult> {
  const session = await peerSession(platform, templates.taps, 'live-tap', 2);
  const [subscriber, writer] = session.tokens as [string, string];
  const socket = await subscribedSocket(platform, subscriber, session.roomId);
  const echo = await startWebSocketRoundTrips();
  const taps: number[] = [];
  const updates: number[] = [];
  const echoes: number[] = [];
  let missing = 0;
  try {
    await phase('live: tap latency', samples, async (progress) => {
      for (let i = 0; i < samples; i++) {
        const baselineRound = async () => {
          updates.push(await baselines.update());
          echoes.push(await echo.roundTrip());
        };
        if (i % 2 === 0) await baselineRound();
        const write = await writeProperties(platform.call, writer, session.roomId, i);
        await socket.waitFor(tapAtLeast(session.roomId, write.changeNumber), tapTimeoutMs).then(
          (tap) => taps.push(tap.at - write.answeredAt),
          () => void missing++,
        );
        if (i % 2 === 1) await baselineRound();
        progress.add();
      }
    });
  } finally {
    await socket.close();
    await echo.close();
  }
  const tap = summarize(taps);
  const sum = summarize(pairwiseSum(updates, echoes));
  const baseline = { update: summarize(updates), echo: summarize(echoes), sum };
  return { samples, missing, tap, baseline, ratioP50: ratio(tap.p50, sum.p50), ratioP99: ratio(tap.p99, sum.p99) };
}

/** `count` admins' sockets (distinct accounts: the platform bounds sockets per account), each subscribed. */
async function adminSockets(platform: BenchPlatform, roomId: string, count: number): Promise<BenchSocket[]> {
  const tokens = await phase('live: admin tokens', count, async (progress) => {
    const minted = new Array<string>(count);
    await forEachLimited([...minted.keys()], 16, async (i) => {
      minted[i] = await mint(platform.call, `bench-live-watcher-${i}`, ['admin']);
      progress.add();
    });
    return minted;
  });
  return phase('live: sockets subscribed', count, async (progress) => {
    const sockets: BenchSocket[] = [];
    await forEachLimited(tokens, 32, async (token) => {
      sockets.push(await subscribedSocket(platform, token, roomId));
      progress.add();
    });
    return sockets;
  });
}

/**
 * Figure 2: `subscribers` sockets on one session, then `writes` writes one after another;
 * each write waits until every socket has its tap (or `tapTimeoutMs` passed: missing).
 */
async function benchFanout(platform: BenchPlatform, subscribers: number, writes: number): Promise<FanoutResult> {
  const session = await peerSession(platform, templates.taps, 'live-fanout', 1);
  const [writer] = session.tokens as [string];
  const sockets = await adminSockets(platform, session.roomId, subscribers);
  const latencies: number[] = [];
  let missing = 0;
  try {
    await phase('live: writes to 1 session', writes, async (progress) => {
      for (let i = 0; i < writes; i++) {
        const write = await writeProperties(platform.call, writer, session.roomId, i);
        await Promise.all(
          sockets.map((socket) =>
            socket.waitFor(tapAtLeast(session.roomId, write.changeNumber), tapTimeoutMs).then(
              (tap) => void latencies.push(tap.at - write.answeredAt),
              () => void missing++,
            ),
          ),
        );
        progress.add();
        progress.note(`${missing} missing so far`);
      }
    });
  } finally {
    await phase('live: sockets closed', subscribers, async (progress) => {
      await forEachLimited(sockets, 64, async (socket) => {
        await socket.close();
        progress.add();
      });
    });
  }
  return { subscribers, writes, delivered: latencies.length, missing, tap: summarize(latencies) };
}

interface Member {
  readonly account: string;
  readonly token: string;
  readonly socket: BenchSocket;
}

const namesHost = (roomId: string) => (frame: ServerFrame) =>
  frame.type === 'tap' && frame.roomId === roomId && frame.changes.includes('host');

/**
 * The documented client strategy of one member once the host is gone (docs/live.md, the
 * client loop): claim with the epoch it knows; on HOST_ALIVE claim again after
 * `details.retryAfterMs`, half a timeout later for a member that is not the preferred
 * successor (sooner if a tap names a new host meanwhile); on STALE_EPOCH another member won,
 * its epoch is current.
 */
async function claimUntilDecided(
  call: Call,
  member: Member & { readonly successor: boolean },
  room: { readonly roomId: string; readonly epoch: number },
  hostTap: Promise<unknown>,
): Promise<{ readonly claims: number; readonly won: boolean; readonly firstWaitMs: number }> {
  let decided = false;
  void hostTap.then(() => void (decided = true));
  let claims = 0;
  let firstWaitMs = Number.NaN;
  while (!decided) {
    const answer = await call('POST', `/v1/rooms/${room.roomId}/host`, {
      token: member.token,
      body: { epoch: room.epoch },
    });
    claims++;
    if (answer.status === 200) return { claims, won: answer.body.room.host.account === member.account, firstWaitMs };
    const error = answer.body?.error as { code?: string; details?: { retryAfterMs?: number } } | undefined;
    if (error?.code === 'STALE_EPOCH') return { claims, won: false, firstWaitMs };
    if (error?.code !== 'HOST_ALIVE')
      throw new Error(`claim answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    const waitMs = (error.details?.retryAfterMs ?? hostTimeoutMs) + (member.successor ? 0 : hostTimeoutMs / 2);
    if (claims === 1) firstWaitMs = waitMs;
    await Promise.race([delay(waitMs), hostTap]);
  }
  return { claims, won: false, firstWaitMs };
}

/** When (ms after `killedAt`) this member saw the new epoch: a tap naming `host`, then its GET shows epoch + 1. */
async function seenNewEpoch(call: Call, member: Member, room: { roomId: string; epoch: number }, killedAt: number) {
  const deadline = killedAt + 1.5 * hostTimeoutMs + 10_000;
  let since = killedAt;
  for (;;) {
    const tap = await member.socket.waitFor(namesHost(room.roomId), Math.max(0, deadline - performance.now()), since);
    const read = must(await call('GET', `/v1/rooms/${room.roomId}`, { token: member.token }), 200, 'GET room');
    if ((read.body.room.host?.epoch as number) > room.epoch) return performance.now() - killedAt;
    since = tap.at + Number.EPSILON;
  }
}

/** The host's sockets and the other members', each subscribed; the host pings every hostTimeoutMs / 4. */
async function migrationSession(platform: BenchPlatform, rep: number) {
  const prefix = `live-migrate-${rep}`;
  const session = await peerSession(platform, templates.migrate, prefix, 6);
  const sockets = await Promise.all(session.tokens.map((token) => subscribedSocket(platform, token, session.roomId)));
  const [hostSocket, ...others] = sockets as [BenchSocket, ...BenchSocket[]];
  const pings = setInterval(() => hostSocket.send({ action: 'ping' }), hostTimeoutMs / 4);
  const members: Member[] = others.map((socket, i) => ({
    account: `${prefix}-${i + 1}`,
    token: session.tokens[i + 1] as string,
    socket,
  }));
  const close = async () => {
    clearInterval(pings);
    await Promise.all(sockets.map((socket) => socket.close()));
  };
  return { roomId: session.roomId, hostSocket, pings, members, close };
}

/**
 * Checks that the pings keep the host: after hostTimeoutMs of them, the preferred successor's
 * claim is refused HOST_ALIVE. Resolves with the epoch every member knows and that successor.
 */
async function hostStaysAlive(call: Call, roomId: string, members: readonly Member[]) {
  await delay(hostTimeoutMs);
  const [first] = members as [Member];
  const { host } = must(await call('GET', `/v1/rooms/${roomId}`, { token: first.token }), 200, 'GET room').body
    .room as { host: { epoch: number; next?: string } };
  const successor = members.find((m) => m.account === host.next) ?? first;
  const claim = await call('POST', `/v1/rooms/${roomId}/host`, { token: successor.token, body: { epoch: host.epoch } });
  if (claim.body?.error?.code !== 'HOST_ALIVE')
    throw new Error(`a pinging host was not kept: the claim answered ${claim.status} ${JSON.stringify(claim.body)}`);
  return { epoch: host.epoch, successor: successor.account };
}

/**
 * Figure 3, once: a peer-hosted `migrateHost` session of a host and 5 active members, all
 * subscribed; the host is killed (its socket closed, its pings stopped) and every member
 * runs the client strategy at once. Timed until the last member has seen the new epoch.
 * The kill comes just after a ping (the check before it waits a whole number of ping periods):
 * the host's last sign is as late as it can be, the slowest case for a strategy that waits.
 */
async function migrateOnce(platform: BenchPlatform, rep: number): Promise<MigrationRun> {
  const session = await migrationSession(platform, rep);
  try {
    const { epoch, successor } = await hostStaysAlive(platform.call, session.roomId, session.members);
    const room = { roomId: session.roomId, epoch };
    clearInterval(session.pings);
    const killedAt = performance.now();
    void session.hostSocket.close();
    const deadlineMs = 1.5 * hostTimeoutMs + 10_000;
    const outcomes = await Promise.all(
      session.members.map(async (member) => {
        const hostTap = member.socket.waitFor(namesHost(room.roomId), deadlineMs, killedAt).then(
          () => true,
          () => false,
        );
        const [claim, seenMs] = await Promise.all([
          claimUntilDecided(platform.call, { ...member, successor: member.account === successor }, room, hostTap),
          seenNewEpoch(platform.call, member, room, killedAt).catch(() => Number.NaN),
        ]);
        return { ...claim, seenMs, successor: member.account === successor };
      }),
    );
    const seen = outcomes.filter((o) => Number.isFinite(o.seenMs));
    return {
      allSeenMs: seen.length === outcomes.length ? Math.max(...seen.map((o) => o.seenMs)) : Number.NaN,
      membersSeen: seen.length,
      winners: outcomes.filter((o) => o.won).length,
      claims: outcomes.reduce((sum, o) => sum + o.claims, 0),
      successorWaitMs: outcomes.find((o) => o.successor)?.firstWaitMs ?? Number.NaN,
    };
  } finally {
    await session.close();
  }
}

/** The game process the room's sidecar started (as test/e2e/server-replacement.test.ts finds it). */
function gamePid(platform: BenchPlatform, roomId: string): number {
  const tasks = (platform.cloud.fleet as unknown as { tasks: Map<string, { child: { pid?: number } }> }).tasks;
  const sidecar = tasks.get(`local:${roomId}`)?.child.pid;
  if (sidecar === undefined) throw new Error(`room ${roomId} has no local sidecar`);
  const [child] = readFileSync(`/proc/${sidecar}/task/${sidecar}/children`, 'utf8').trim().split(/\s+/);
  if (!child) throw new Error(`the sidecar of room ${roomId} runs no game`);
  return Number(child);
}

/** A player in the sample game: connects with its reservation and waits for `welcome` (its seat confirmed). */
async function seat(reservation: { key: string; host: string; ports: number[] }): Promise<WebSocket> {
  const ws = new WebSocket(`ws://${reservation.host}:${reservation.ports[0]}`);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  ws.on('error', () => undefined); // the game is killed under it
  const welcomed = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('no welcome from the game within 10 s')), 10_000);
    ws.on('message', (data) => {
      if ((JSON.parse(String(data)) as { type?: string }).type !== 'welcome') return;
      clearTimeout(timer);
      resolve();
    });
  });
  ws.send(reservation.key);
  await welcomed;
  return ws;
}

interface RoomRead {
  readonly state: string;
  readonly changeNumber: number;
  readonly host?: { readonly epoch: number };
}

const readRoom = async (call: Call, token: string, roomId: string): Promise<RoomRead> =>
  must(await call('GET', `/v1/rooms/${roomId}`, { token }), 200, 'GET room').body.room as RoomRead;

/** Until the room reads `ready` (a create answers before its server's `inited`); untimed set-up. */
async function untilReady(call: Call, token: string, roomId: string): Promise<RoomRead> {
  const until = performance.now() + 30_000;
  for (;;) {
    const room = await readRoom(call, token, roomId);
    if (room.state === 'ready') return room;
    if (performance.now() > until) throw new Error(`room ${roomId} is still ${room.state} after 30 s`);
    await delay(50);
  }
}

/**
 * Figure 4, once: a dedicated `migrateHost` room of the sample game with its creator seated
 * and subscribed; the game process is killed. Timed from the tap of the replacement write
 * (the death detected: spawning at epoch + 1) to the tap at whose change number the room
 * reads ready at that epoch.
 */
async function replaceOnce(platform: BenchPlatform, rep: number): Promise<ReplacementRun> {
  const [token] = (await platform.tokens(`live-kept-${rep}`, 1)) as [string];
  const created = must(
    await platform.call('POST', '/v1/rooms', { token, body: { template: templates.kept } }),
    201,
    'create',
  );
  const roomId = created.body.room.roomId as string;
  const { epoch = 1 } = (await untilReady(platform.call, token, roomId)).host ?? {};
  const game = await seat(created.body.reservation as { key: string; host: string; ports: number[] });
  const socket = await subscribedSocket(platform, token, roomId);
  try {
    const killedAt = performance.now();
    process.kill(gamePid(platform, roomId), 'SIGKILL');
    const detected = await socket.waitFor(namesHost(roomId), 30_000, killedAt);
    let since = detected.at;
    for (;;) {
      const room = await readRoom(platform.call, token, roomId);
      if (room.state === 'ready' && (room.host?.epoch ?? 0) > epoch) {
        const ready = await socket.waitFor(tapAtLeast(roomId, room.changeNumber), 30_000, detected.at);
        return { killToDetectedMs: detected.at - killedAt, detectedToReadyMs: ready.at - detected.at };
      }
      if (room.state !== 'spawning' && room.state !== 'ready') throw new Error(`the room went ${room.state}`);
      since = (await socket.waitFor(tapAtLeast(roomId, room.changeNumber + 1), 30_000, since)).at;
    }
  } finally {
    game.terminate();
    await socket.close();
    await platform.releaseRooms();
  }
}

async function benchReplacements(platform: BenchPlatform, reps: number) {
  const runs: ReplacementRun[] = [];
  let failures = 0;
  await phase('live: dedicated replacements', reps, async (progress) => {
    for (let rep = 0; rep < reps; rep++) {
      await replaceOnce(platform, rep).then(
        (run) => runs.push(run),
        (error: unknown) => {
          failures++;
          process.stderr.write(`  ! replacement ${rep + 1} failed: ${(error as Error).message}\n`);
        },
      );
      progress.add();
    }
  });
  return { runs, failures };
}

/**
 * `live`: live sessions on the local cloud, through the public HTTP API and real sockets:
 * tap latency against its raw parts, one session's fan-out to 1,000 subscribers, host
 * migration in a peer-hosted session, and a dedicated room's replacement server.
 */
export async function benchLive(
  platform: BenchPlatform,
  baselines: Baselines,
  options: LiveOptions,
): Promise<LiveResult> {
  await putTemplates(platform);
  const taps = await benchTaps(platform, baselines, options.tapSamples);
  const fanout = await benchFanout(platform, options.subscribers, options.fanoutWrites);
  const migrations = await phase('live: host migrations', options.migrations, async (progress) => {
    const runs: MigrationRun[] = [];
    for (let rep = 0; rep < options.migrations; rep++) {
      runs.push(await migrateOnce(platform, rep));
      progress.add();
    }
    return runs;
  });
  const replacement = await benchReplacements(platform, options.replacements);
  return { scenario: 'live', taps, fanout, migration: { hostTimeoutMs, runs: migrations }, replacement };
}

/** The worst of `values`, or NaN when one could not be measured (or none was). */
const worst = (values: readonly number[]) =>
  values.length > 0 && values.every(Number.isFinite) ? Math.max(...values) : Number.NaN;

function liveFigures(result: LiveResult) {
  const { taps, fanout, migration, replacement } = result;
  const migrationBoundMs = migration.hostTimeoutMs + liveTargets.migrationSlackMs;
  const migrationTimes = migration.runs.map((run) => run.allSeenMs);
  const readyTimes = replacement.runs.map((run) => run.detectedToReadyMs);
  return {
    migrationBoundMs,
    migrationTimes: summarize(migrationTimes.filter(Number.isFinite)),
    migrationWorstMs: worst(migrationTimes),
    /** Runs where not exactly one member won the election. */
    splitElections: migration.runs.filter((run) => run.winners !== 1).length,
    readyTimes: summarize(readyTimes),
    readyWorstMs: replacement.failures > 0 ? Number.NaN : worst(readyTimes),
    detected: summarize(replacement.runs.map((run) => run.killToDetectedMs)),
    fanoutExpected: fanout.subscribers * fanout.writes,
    fanoutP99: fanout.missing > 0 ? Number.NaN : fanout.tap.p99,
    tapsMeet: meets(taps.ratioP50, liveTargets.tapRatio) && meets(taps.ratioP99, liveTargets.tapRatio),
  };
}

function liveLines(result: LiveResult, f: ReturnType<typeof liveFigures>): string[] {
  const { taps, fanout, migration, replacement } = result;
  const t = describeTarget(liveTargets.tapRatio);
  return [
    `live: taps, fan-out, host migration and replacement servers over the local cloud's sockets`,
    `  tap latency, ${taps.samples} writes (PATCH answer → tap at another member's socket), ${taps.missing} missing`,
    `    write answer → tap             ${describeLatency(taps.tap)}`,
    `    conditional UpdateItem         ${describeLatency(taps.baseline.update)}`,
    `    WebSocket message + echo       ${describeLatency(taps.baseline.echo)}`,
    `    UpdateItem + echo (baseline)   ${describeLatency(taps.baseline.sum)}   (interleaved, same run)`,
    `    RATIO p50 ${formatRatio(taps.ratioP50)}, p99 ${formatRatio(taps.ratioP99)}   target ${t}   ${verdict(f.tapsMeet)}`,
    `  ${fanout.subscribers} subscribers on one session, ${fanout.writes} writes: ${fanout.delivered}/${f.fanoutExpected} taps delivered, ${fanout.missing} missing`,
    `    write answer → each tap        ${describeLatency(fanout.tap)}   target p99 ≤ ${formatMs(liveTargets.fanoutP99Ms)}   ${verdict(fanout.missing === 0 && f.fanoutP99 <= liveTargets.fanoutP99Ms)}`,
    `  host migration, hostTimeoutMs ${migration.hostTimeoutMs}, ${migration.runs.length} runs (host killed → all 5 members see the new epoch)`,
    ...migration.runs.map(
      (r) =>
        `    ${formatMs(r.allSeenMs)}: ${r.membersSeen}/5 seen, ${r.winners} winner, ${r.claims} claims, the preferred successor's first claim told to wait ${formatMs(r.successorWaitMs)}`,
    ),
    `    worst ${formatMs(f.migrationWorstMs)}   target ≤ ${formatMs(f.migrationBoundMs)}   ${verdict(f.migrationWorstMs <= f.migrationBoundMs && f.splitElections === 0)}`,
    `  dedicated replacement (cold spawn), ${replacement.runs.length} runs, ${replacement.failures} failed`,
    `    game killed → death detected   ${describeLatency(f.detected)}`,
    `    detected → replacement ready   ${describeLatency(f.readyTimes)}   worst ${formatMs(f.readyWorstMs)}   target ≤ ${formatMs(liveTargets.replacementMs)} (from a warm pool)   ${verdict(f.readyWorstMs <= liveTargets.replacementMs)}`,
  ];
}

export function summarizeLive(result: LiveResult): ScenarioSummary {
  const { taps, fanout, migration } = result;
  const f = liveFigures(result);
  const atMostOne: Target = { kind: 'atMost', value: 1 };
  return {
    id: 'live',
    title: 'Live sessions: taps, fan-out, host migration, replacement',
    lines: liveLines(result, f),
    rows: [
      ...(['p50', 'p99'] as const).map((p) => ({
        scenario: `live: tap latency ${p}`,
        figure: `${p} ${formatMs(taps.tap[p])}`,
        baseline: `UpdateItem + WebSocket echo ${p} ${formatMs(taps.baseline.sum[p])}`,
        ratio: p === 'p50' ? taps.ratioP50 : taps.ratioP99,
        target: liveTargets.tapRatio,
        reading: `lower is better; from the write's HTTP answer to the tap at another member's socket`,
      })),
      {
        scenario: `live: ${fanout.subscribers} subscribers, taps delivered`,
        figure: `${fanout.delivered}/${f.fanoutExpected} (${fanout.writes} writes)`,
        baseline: 'every subscriber, every write',
        ratio: ratio(fanout.delivered, f.fanoutExpected),
        target: { kind: 'atLeast', value: 1 },
        reading: '1 = none missing',
      },
      {
        scenario: `live: ${fanout.subscribers} subscribers, tap p99`,
        figure: `p99 ${formatMs(fanout.tap.p99)}`,
        baseline: `target ${formatMs(liveTargets.fanoutP99Ms)}`,
        ratio: ratio(f.fanoutP99, liveTargets.fanoutP99Ms),
        target: atMostOne,
        reading: "p99 ÷ 2 s, from each write's HTTP answer; n/a when a tap was missing",
      },
      {
        scenario: `live: host migration (hostTimeoutMs ${migration.hostTimeoutMs})`,
        figure: `worst ${formatMs(f.migrationWorstMs)}, p50 ${formatMs(f.migrationTimes.p50)} (${migration.runs.length} runs)`,
        baseline: `hostTimeoutMs + 1 s = ${formatMs(f.migrationBoundMs)}`,
        ratio: f.splitElections > 0 ? Number.NaN : ratio(f.migrationWorstMs, f.migrationBoundMs),
        target: atMostOne,
        reading: 'host killed → every member has seen the new epoch; n/a if a run did not elect exactly one',
      },
      {
        scenario: 'live: dedicated replacement',
        figure: `worst ${formatMs(f.readyWorstMs)}, p50 ${formatMs(f.readyTimes.p50)} (${result.replacement.runs.length} runs)`,
        baseline: `target ${formatMs(liveTargets.replacementMs)}`,
        ratio: ratio(f.readyWorstMs, liveTargets.replacementMs),
        target: atMostOne,
        reading:
          'death detected → replacement ready; a cold spawn: the warm pool cannot serve an existing room (docs/game-server-protocol.md, Replacement servers)',
      },
    ],
    charts: [
      {
        id: 'live-taps',
        title: 'Tap latency vs its raw parts (same run)',
        unit: 'ms',
        bars: [
          { label: 'write answer → tap p50', value: taps.tap.p50, series: 'roomkeeper' },
          { label: 'write answer → tap p99', value: taps.tap.p99, series: 'roomkeeper' },
          { label: 'UpdateItem + echo p50', value: taps.baseline.sum.p50, series: 'baseline' },
          { label: 'UpdateItem + echo p99', value: taps.baseline.sum.p99, series: 'baseline' },
        ],
      },
    ],
  };
}
