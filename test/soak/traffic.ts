import { randomInt } from 'node:crypto';
import { WebSocket } from 'ws';
import type { Answer } from './verdicts';
import { soakGame } from './platform-process';

/**
 * Mixed player traffic against the API and the game servers: virtual players who create
 * rooms, join them by id, find-or-create, list, and leave, and who take their seat in the
 * sample game over WebSocket (the game then confirms them with `joined` through its
 * sidecar) and later leave it (the game calls `left`). Every answer is recorded with its
 * time; every seat the game confirmed is kept in a ledger until its player leaves.
 */
export interface Seat {
  readonly roomId: string;
  readonly account: string;
  readonly token: string;
  readonly socket: WebSocket;
  readonly confirmedAtMs: number;
}

export interface TrafficRecord {
  readonly answers: Answer[];
  readonly latencies: Record<string, number[]>;
  /** Seats the game confirmed and that are still held. */
  readonly seated: Map<string, Seat>;
  /** Every room the traffic saw, with a token that may read it. */
  readonly rooms: Map<string, string>;
  /** The rooms players still pick from: those not yet seen ended. */
  readonly liveRooms: Set<string>;
  confirmed: number;
  left: number;
  refusedByGame: number;
}

export interface TrafficOptions {
  readonly apiUrl: string;
  readonly players: number;
  readonly maxRooms: number;
  readonly requestTimeoutMs: number;
  readonly startedAt: number;
  readonly stopAt: () => boolean;
}

interface Response {
  readonly status: number;
  readonly body: any;
}

export function newTrafficRecord(): TrafficRecord {
  return {
    answers: [],
    latencies: {},
    seated: new Map(),
    rooms: new Map(),
    liveRooms: new Set(),
    confirmed: 0,
    left: 0,
    refusedByGame: 0,
  };
}

/** One API call, timed and recorded; no answer within the timeout is status 0. */
export async function timedCall(
  options: Pick<TrafficOptions, 'apiUrl' | 'requestTimeoutMs' | 'startedAt'>,
  record: TrafficRecord,
  operation: string,
  method: string,
  path: string,
  token: string | undefined,
  body?: unknown,
): Promise<Response> {
  const started = performance.now();
  let response: Response;
  try {
    const answer = await fetch(`${options.apiUrl}${path}`, {
      method,
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(options.requestTimeoutMs),
    });
    const text = await answer.text();
    response = { status: answer.status, body: text ? JSON.parse(text) : undefined };
  } catch {
    response = { status: 0, body: undefined };
  }
  const elapsed = performance.now() - started;
  record.answers.push({
    operation,
    atMs: performance.now() - options.startedAt,
    status: response.status,
    ...(response.body?.error?.code ? { code: response.body.error.code as string } : {}),
  });
  if (response.status >= 200 && response.status < 300) (record.latencies[operation] ??= []).push(elapsed);
  return response;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Takes the seat a reservation holds: WebSocket to the game, the key, and the game's `welcome`. */
async function takeSeat(reservation: { key: string; host: string; ports: number[] }): Promise<WebSocket | undefined> {
  if (reservation.host === 'pending' || !reservation.ports?.[0]) return undefined;
  return new Promise((resolve) => {
    const socket = new WebSocket(`ws://${reservation.host}:${reservation.ports[0]}`);
    const timer = setTimeout(() => {
      socket.terminate();
      resolve(undefined);
    }, 15_000);
    socket.once('open', () => socket.send(reservation.key));
    socket.once('message', (data) => {
      clearTimeout(timer);
      const message = JSON.parse(data.toString()) as { type: string };
      if (message.type === 'welcome') resolve(socket);
      else {
        socket.terminate();
        resolve(undefined);
      }
    });
    socket.once('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** Runs `options.players` virtual players until `stopAt()`. */
export async function runTraffic(options: TrafficOptions, record: TrafficRecord): Promise<void> {
  let accounts = 0;
  const call = (operation: string, method: string, path: string, token: string | undefined, body?: unknown) =>
    timedCall(options, record, operation, method, path, token, body);

  const player = async (p: number) => {
    while (!options.stopAt()) {
      const account = `soak-${p}-${accounts++}`;
      const minted = await call('token', 'POST', '/v1/dev/tokens', undefined, { account });
      const token = minted.body?.access_token as string | undefined;
      if (!token) {
        await pause(500);
        continue;
      }
      const liveRooms = [...record.liveRooms];
      const dice = randomInt(100);
      let answer: Response | undefined;
      /** The room a join named by id: dropped from the live ones once it answers that it ended. */
      let named: string | undefined;
      if (dice < 10 && liveRooms.length < options.maxRooms) {
        answer = await call('create', 'POST', '/v1/rooms', token, {
          gameId: soakGame.gameId,
          version: soakGame.version,
        });
      } else if (dice < 45 && liveRooms.length > 0) {
        named = liveRooms[randomInt(liveRooms.length)] as string;
        answer = await call('join', 'POST', `/v1/rooms/${named}/join`, token, {});
      } else if (dice < 90) {
        answer = await call('find-or-create', 'POST', '/v1/matchmaking/join', token, {
          gameId: soakGame.gameId,
          version: soakGame.version,
        });
      } else {
        await call('list', 'GET', `/v1/rooms?gameId=${soakGame.gameId}&version=${soakGame.version}`, token);
        await pause(randomInt(200, 1_000));
        continue;
      }
      const roomId = answer.body?.room?.roomId as string | undefined;
      if (roomId && answer.body.room.state !== 'failed' && answer.body.room.state !== 'closed') {
        record.rooms.set(roomId, token);
        record.liveRooms.add(roomId);
      } else if (roomId) record.liveRooms.delete(roomId);
      if (named && (answer.status === 404 || answer.body?.error?.code === 'NOT_JOINABLE'))
        record.liveRooms.delete(named);
      if (answer.status < 200 || answer.status >= 300 || !roomId) {
        await pause(randomInt(100, 600));
        continue;
      }
      // One in five reservations is cancelled instead of taken.
      if (randomInt(5) === 0) {
        await call('leave', 'DELETE', `/v1/rooms/${roomId}/members/me`, token);
        continue;
      }
      const socket = await takeSeat(answer.body.reservation);
      if (!socket) {
        record.refusedByGame++;
        await call('leave', 'DELETE', `/v1/rooms/${roomId}/members/me`, token);
        continue;
      }
      const seat: Seat = { roomId, account, token, socket, confirmedAtMs: performance.now() - options.startedAt };
      record.confirmed++;
      record.seated.set(account, seat);
      await pause(randomInt(2_000, 12_000));
      if (!record.seated.has(account)) continue; // its room ended meanwhile
      // At the end seats stay taken: the final checks look for them in their rooms.
      if (options.stopAt()) return;
      record.seated.delete(account);
      // Half leave through the game (it calls `left`), half through the API.
      if (randomInt(2) === 0) socket.close();
      else {
        await call('leave', 'DELETE', `/v1/rooms/${roomId}/members/me`, token);
        socket.close();
      }
      record.left++;
    }
  };
  await Promise.all(Array.from({ length: options.players }, (_, p) => player(p)));
}
