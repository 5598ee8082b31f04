import { WebSocket } from 'ws';
import { soakGame } from './platform-process';
import { timedCall, type TrafficOptions, type TrafficRecord } from './traffic';
import { bloatVerdict, type Requirement } from './verdicts';

/**
 * Two faults that act on rooms through the public API only (issue 26): a room bloated by
 * join/leave cycles, and a DynamoDB stall while players connect to their games.
 */
type Api = Pick<TrafficOptions, 'apiUrl' | 'requestTimeoutMs' | 'startedAt'>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The platform's default join rate limit (JOIN_RATE_LIMIT_PER_MINUTE); the cycles stay under it. */
const joinsPerMinutePerAccount = 18;

/**
 * Many accounts cycle join + leave on one room, each within its rate limit, `workers` at a
 * time (a room of 8 is never full), for `durationMs`. Every leave keeps a tombstone in the
 * room's document for a while: the room must neither answer 5xx nor fail, and still take a
 * fresh join at the end.
 */
export async function bloatRoom(
  api: Api,
  record: TrafficRecord,
  options: { readonly durationMs: number; readonly accounts: number; readonly workers: number },
): Promise<Requirement> {
  const call = (operation: string, method: string, path: string, token: string | undefined, body?: unknown) =>
    timedCall(api, record, operation, method, path, token, body);
  const tokenOf = async (account: string) =>
    (await call('token', 'POST', '/v1/dev/tokens', undefined, { account })).body?.access_token as string | undefined;
  const ownerToken = await tokenOf('soak-bloat-owner');
  const created = await call('bloat-create', 'POST', '/v1/rooms', ownerToken, {
    gameId: soakGame.gameId,
    version: soakGame.version,
  });
  const roomId = created.body?.room?.roomId as string | undefined;
  if (!roomId)
    return {
      name: 'a room bloated by join/leave cycles stays healthy',
      pass: false,
      detail: `create answered ${created.status}`,
    };
  const first = record.answers.length;
  const tokens = new Map<string, string>();
  const joinsAt = new Map<string, number[]>();
  let next = 0;
  let cycles = 0;
  const until = performance.now() + options.durationMs;
  /** The next account under its limit, or undefined when all are at it for now. */
  const nextAccount = () => {
    for (let tried = 0; tried < options.accounts; tried++) {
      const account = `soak-bloat-${next++ % options.accounts}`;
      const recent = (joinsAt.get(account) ?? []).filter((at) => at > performance.now() - 61_000);
      joinsAt.set(account, recent);
      if (recent.length < joinsPerMinutePerAccount) return account;
    }
    return undefined;
  };
  const worker = async () => {
    while (performance.now() < until) {
      const account = nextAccount();
      if (!account) {
        await sleep(500);
        continue;
      }
      let token = tokens.get(account);
      if (!token) {
        token = await tokenOf(account);
        if (!token) continue;
        tokens.set(account, token);
      }
      joinsAt.get(account)?.push(performance.now());
      const joined = await call('bloat-join', 'POST', `/v1/rooms/${roomId}/join`, token, {});
      if (joined.status >= 200 && joined.status < 300) {
        await call('bloat-leave', 'DELETE', `/v1/rooms/${roomId}/members/me`, token);
        cycles++;
      }
    }
  };
  await Promise.all(Array.from({ length: options.workers }, () => worker()));
  const fresh = await tokenOf('soak-bloat-after');
  const after = await call('bloat-join', 'POST', `/v1/rooms/${roomId}/join`, fresh, {});
  if (after.status >= 200 && after.status < 300)
    await call('bloat-leave', 'DELETE', `/v1/rooms/${roomId}/members/me`, fresh);
  const state = (await call('probe', 'GET', `/v1/rooms/${roomId}`, ownerToken)).body?.room?.state as string | undefined;
  record.rooms.set(roomId, ownerToken ?? '');
  return bloatVerdict({
    answers: record.answers.slice(first).filter((a) => a.operation.startsWith('bloat-')),
    cycles,
    accounts: options.accounts,
    roomState: state,
    joinAfter: after.status,
  });
}

/** Connects to a game with a key; the game's first word: welcomed, or refused (error, close, nothing in 25 s). */
function connect(host: string, port: number, key: string, sockets: WebSocket[]): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://${host}:${port}`);
    sockets.push(socket);
    const timer = setTimeout(() => resolve(false), 25_000);
    const settle = (welcomed: boolean) => {
      clearTimeout(timer);
      resolve(welcomed);
    };
    socket.on('open', () => socket.send(key));
    socket.on('message', (data) => settle((JSON.parse(data.toString()) as { type?: string }).type === 'welcome'));
    socket.on('close', () => settle(false));
    socket.on('error', () => settle(false));
  });
}

export interface StallOutcome {
  readonly rooms: string[];
  readonly failedRooms: string[];
  /** Seconds from the end of the stall until each player was welcomed (undefined: never). */
  readonly welcomedAfterS: (number | undefined)[];
  /** When DynamoDB was paused and resumed (ms since the traffic started). */
  readonly fromMs: number;
  readonly resumedMs: number;
}

/**
 * Pauses DynamoDB Local for `stallS` just as one new player in each of up to four of these
 * rooms (those still ready) opens its WebSocket to
 * its game and sends its key, so each room's `joined` is in flight through the stall. After
 * it, each player reconnects with its key until welcomed; two heartbeat timeouts later none
 * of the rooms may have failed.
 */
export async function stallWhileConnecting(
  api: Api,
  record: TrafficRecord,
  options: {
    readonly roomIds: readonly string[];
    readonly stallS: number;
    readonly pause: () => void;
    readonly resume: () => void;
    readonly sinceStart: () => number;
  },
): Promise<StallOutcome> {
  const call = (operation: string, method: string, path: string, token: string | undefined, body?: unknown) =>
    timedCall(api, record, operation, method, path, token, body);
  const seats: { roomId: string; token: string; host: string; port: number; key: string }[] = [];
  for (const [i, roomId] of options.roomIds.entries()) {
    if (seats.length >= 4) break;
    const token = (await call('token', 'POST', '/v1/dev/tokens', undefined, { account: `soak-stall-${i}` })).body
      ?.access_token as string | undefined;
    if (!token) continue;
    // The traffic's list of rooms may be older than a room's end.
    if ((await call('probe', 'GET', `/v1/rooms/${roomId}`, token)).body?.room?.state !== 'ready') continue;
    const joined = await call('stall-join', 'POST', `/v1/rooms/${roomId}/join`, token, {});
    const reservation = joined.body?.reservation;
    if (joined.status !== 200 || !reservation?.ports?.[0] || reservation.host === 'pending') continue;
    seats.push({ roomId, token, host: reservation.host, port: reservation.ports[0], key: reservation.key });
  }
  const sockets: WebSocket[] = [];
  const fromMs = options.sinceStart();
  options.pause();
  let resumedMs: number;
  const first = seats.map((s) => connect(s.host, s.port, s.key, sockets));
  try {
    await sleep(options.stallS * 1000);
  } finally {
    options.resume();
    resumedMs = options.sinceStart();
  }
  const welcomedAfterS = await Promise.all(
    seats.map(async (seat, i) => {
      let welcomed = await first[i];
      const deadline = performance.now() + 40_000;
      while (!welcomed && performance.now() < deadline) {
        await sleep(250);
        welcomed = await connect(seat.host, seat.port, seat.key, sockets);
      }
      return welcomed ? (options.sinceStart() - resumedMs) / 1000 : undefined;
    }),
  );
  // Two heartbeat timeouts and a few sweeps after the stall.
  await sleep(Math.max(0, resumedMs + 22_000 - options.sinceStart()));
  const failedRooms: string[] = [];
  for (const seat of seats) {
    const state = (await call('probe', 'GET', `/v1/rooms/${seat.roomId}`, seat.token)).body?.room?.state;
    if (state !== 'ready') failedRooms.push(`${seat.roomId} (${String(state)})`);
  }
  for (const socket of sockets) socket.close();
  return { rooms: seats.map((s) => s.roomId), failedRooms, welcomedAfterS, fromMs, resumedMs };
}
