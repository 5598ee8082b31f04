import { WebSocket } from 'ws';
import { serverFrameSchema, type ServerFrame } from '../../core/live/messages';

/** A test's live-session socket: every frame it received, parsed against the documented frames, in order. */
export interface LiveClient {
  readonly ws: WebSocket;
  /** The next frame not yet taken (waits up to `timeoutMs`). */
  next(timeoutMs?: number): Promise<ServerFrame>;
  /** Frames received and not yet taken. */
  readonly pending: readonly ServerFrame[];
  /** Sends a frame: an object as JSON, a string as it is. */
  send(frame: unknown): void;
  /** Resolves with the close code once the socket is closed (by either side). */
  readonly closed: Promise<number>;
  close(): Promise<number>;
}

/** `url` with the token in the query, as clients connect. */
export const liveUrlWithToken = (url: string, token: string) => `${url}?token=${encodeURIComponent(token)}`;

/** Opens a socket; rejects with the HTTP status when the upgrade is refused. */
export function openLive(url: string, token?: string): Promise<LiveClient> {
  const ws = new WebSocket(token === undefined ? url : liveUrlWithToken(url, token));
  const received: ServerFrame[] = [];
  const waiting: ((frame: ServerFrame) => void)[] = [];
  ws.on('message', (data) => {
    const frame = serverFrameSchema.parse(JSON.parse(String(data)));
    const taker = waiting.shift();
    if (taker) taker(frame);
    else received.push(frame);
  });
  const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    ws.once('unexpected-response', (_req, res) => {
      reject(new RefusedError(res.statusCode ?? 0));
      res.resume();
      ws.terminate();
    });
    ws.once('error', reject);
    ws.once('open', () =>
      resolve({
        ws,
        pending: received,
        next: (timeoutMs = 5_000) => {
          const ready = received.shift();
          if (ready) return Promise.resolve(ready);
          return new Promise((found, fail) => {
            const timer = setTimeout(() => {
              waiting.splice(waiting.indexOf(take), 1);
              fail(new Error(`no frame within ${timeoutMs} ms`));
            }, timeoutMs);
            const take = (frame: ServerFrame) => {
              clearTimeout(timer);
              found(frame);
            };
            waiting.push(take);
          });
        },
        send: (frame) => ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame)),
        closed,
        close: () => {
          ws.close();
          return closed;
        },
      }),
    );
  });
}

export class RefusedError extends Error {
  constructor(readonly status: number) {
    super(`the upgrade was refused: HTTP ${status}`);
  }
}

/** The HTTP status a refused upgrade answered (fails the test if the socket opened). */
export async function refusedStatus(url: string, token?: string): Promise<number> {
  try {
    const client = await openLive(url, token);
    await client.close();
  } catch (error) {
    if (error instanceof RefusedError) return error.status;
    throw error;
  }
  throw new Error('the socket opened');
}
