import { WebSocket } from 'ws';
import type { ClientFrame, ServerFrame } from '../../core/live/messages';
import { liveUrlWithToken } from '../helpers/live-client';

/** A frame as it reached the bench, stamped with `performance.now()` in the socket's own 'message' event. */
export interface Arrival {
  readonly frame: ServerFrame;
  readonly at: number;
}

/**
 * The bench's live-session socket. Unlike the tests' `openLive` (test/helpers/live-client.ts)
 * it does not parse frames against their zod schemas: the bench runs in the local cloud's own
 * process, and 1,000 sockets' schema checks on each tap would be the bench's CPU counted as
 * the platform's fan-out (the tests check every frame's shape). Every frame is kept with the
 * time it arrived, so a latency never includes the time until the bench looked.
 */
export interface BenchSocket {
  send(frame: ClientFrame): void;
  /** The first frame that arrived at or after `since` and matches; waits up to `timeoutMs` for one. */
  waitFor(match: (frame: ServerFrame) => boolean, timeoutMs: number, since?: number): Promise<Arrival>;
  /** Subscribes to `roomId`; resolves once `subscribed` came, rejects on an error frame. */
  subscribe(roomId: string): Promise<void>;
  /** Closes the socket and resolves once it is closed (its `$disconnect` has run on the local cloud). */
  close(): Promise<void>;
}

interface Waiter {
  readonly match: (frame: ServerFrame) => boolean;
  readonly since: number;
  readonly found: (arrival: Arrival) => void;
}

export function openBenchSocket(liveUrl: string, token: string): Promise<BenchSocket> {
  const ws = new WebSocket(liveUrlWithToken(liveUrl, token));
  const arrivals: Arrival[] = [];
  const waiters = new Set<Waiter>();
  ws.on('message', (data) => {
    const arrival = { frame: JSON.parse(String(data)) as ServerFrame, at: performance.now() };
    arrivals.push(arrival);
    for (const waiter of waiters)
      if (arrival.at >= waiter.since && waiter.match(arrival.frame)) {
        waiters.delete(waiter);
        waiter.found(arrival);
      }
  });
  const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  const waitFor: BenchSocket['waitFor'] = (match, timeoutMs, since = Number.NEGATIVE_INFINITY) => {
    const already = arrivals.find((a) => a.at >= since && match(a.frame));
    if (already) return Promise.resolve(already);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        match,
        since,
        found: (arrival) => {
          clearTimeout(timer);
          resolve(arrival);
        },
      };
      const timer = setTimeout(() => {
        waiters.delete(waiter);
        reject(new Error(`no matching frame within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(waiter);
    });
  };
  const socket: BenchSocket = {
    send: (frame) => ws.send(JSON.stringify(frame)),
    waitFor,
    subscribe: async (roomId) => {
      const since = performance.now();
      socket.send({ action: 'subscribe', roomId });
      const { frame } = await waitFor(
        (f) => (f.type === 'subscribed' || f.type === 'error') && f.roomId === roomId,
        10_000,
        since,
      );
      if (frame.type === 'error') throw new Error(`subscribe refused: ${frame.code} ${frame.message}`);
    },
    close: () => {
      ws.close();
      return closed;
    },
  };
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_request, response) => {
      reject(new Error(`the live socket's upgrade was refused: HTTP ${response.statusCode ?? 0}`));
      response.resume();
      ws.terminate();
    });
    ws.once('error', reject);
    ws.once('open', () => {
      // Later errors end in 'close', which `close()` and the waiters' timeouts already cover.
      ws.on('error', () => undefined);
      resolve(socket);
    });
  });
}

/** A tap of `roomId` at change number `changeNumber` or later. */
export const tapAtLeast =
  (roomId: string, changeNumber: number) =>
  (frame: ServerFrame): boolean =>
    frame.type === 'tap' && frame.roomId === roomId && frame.changeNumber >= changeNumber;
