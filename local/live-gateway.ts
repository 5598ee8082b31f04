import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer, type RawData } from 'ws';
import { childLogger } from '../core/infra/logger';
import { connectionBounds } from '../core/live/bounds';
import type { ConnectionSender } from '../core/live/connection-sender';
import type { SocketEvent, SocketHandler, SocketResult } from '../lambdas/live/socket';
import { lambdaContext } from './lambda-context';

/** Where clients open the live-session socket (docs/live.md). */
export const livePath = '/v1/live';

/** The routes the deployed API declares; any other `action` goes to `$default`, as `$request.body.action` selects. */
const declaredRoutes: ReadonlySet<string> = new Set(['subscribe', 'unsubscribe', 'ping']);

export interface LiveGatewayOptions {
  readonly handler: SocketHandler;
  /** Without a client frame for this long the socket is closed. @default API Gateway's 10 minutes */
  readonly idleMs?: number;
  /** A socket is closed this long after it opened. @default API Gateway's 2 hours */
  readonly maxLifetimeMs?: number;
  /** Each invocation's deadline, as the deployed function's timeout. @default 30 s */
  readonly timeoutMs?: number;
}

export interface LocalLiveGateway {
  /** What the platform sends frames with: the open socket of a connection id, or 'gone'. */
  readonly sender: ConnectionSender;
  /** The HTTP server's 'upgrade' listener: `/v1/live` upgrades after `$connect` accepts, anything else is refused. */
  readonly upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** Sockets open now. */
  readonly open: number;
  /** Closes every socket, each through `$disconnect` (so a kept table holds none of them). */
  close(): Promise<void>;
}

const log = childLogger('live-gateway');

/** API Gateway's connection ids are 12 random bytes, base64: unguessable, so one client cannot post as another. */
const newConnectionId = () => randomBytes(12).toString('base64');

const statusText: Record<number, string> = {
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  503: 'Service Unavailable',
};

function refuse(socket: Duplex, status: number): void {
  const body = JSON.stringify({
    error: { code: status === 401 ? 'UNAUTHORIZED' : 'REFUSED', message: 'Connection refused.' },
  });
  socket.end(
    `HTTP/1.1 ${status} ${statusText[status] ?? 'Refused'}\r\ncontent-type: application/json\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** The route a frame takes: its `action` when the API declares a route for it, else `$default`. */
function routeKeyOf(body: string): string {
  try {
    const action = (JSON.parse(body) as { action?: unknown } | null)?.action;
    return typeof action === 'string' && declaredRoutes.has(action) ? action : '$default';
  } catch {
    return '$default';
  }
}

function eventOf(connectionId: string, routeKey: string, extra: Partial<SocketEvent> = {}): SocketEvent {
  return { requestContext: { routeKey, connectionId, requestId: newConnectionId() }, ...extra };
}

/** One accepted socket: its frames go to the handler one after another, then its `$disconnect`. */
interface Held {
  readonly ws: WebSocket;
  queue: Promise<unknown>;
  idle?: NodeJS.Timeout;
  readonly lifetime: NodeJS.Timeout;
}

type Invoke = (event: SocketEvent) => Promise<SocketResult>;

/** An accepted socket: held until it closes, idle and lifetime timers armed, frames in order, then its `$disconnect`. */
function attach(
  held: Map<string, Held>,
  connectionId: string,
  ws: WebSocket,
  invoke: Invoke,
  limits: { idleMs: number; maxLifetimeMs: number },
): void {
  const lifetime = setTimeout(() => ws.close(1001, 'Going away'), limits.maxLifetimeMs);
  lifetime.unref();
  const entry: Held = { ws, queue: Promise.resolve(), lifetime };
  const touch = () => {
    clearTimeout(entry.idle);
    entry.idle = setTimeout(() => ws.close(1001, 'Idle'), limits.idleMs);
    entry.idle.unref();
  };
  const enqueue = (work: () => Promise<unknown>) => {
    entry.queue = entry.queue
      .then(work)
      .catch((error: unknown) => log.error('socket route failed', { error: error as Error }));
  };
  held.set(connectionId, entry);
  touch();
  ws.on('message', (data: RawData) => {
    touch();
    const body = Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.concat(data as Buffer[]).toString('utf8');
    enqueue(() => invoke(eventOf(connectionId, routeKeyOf(body), { body })));
  });
  ws.on('error', () => undefined);
  ws.once('close', () => {
    clearTimeout(entry.idle);
    clearTimeout(entry.lifetime);
    held.delete(connectionId);
    enqueue(() => invoke(eventOf(connectionId, '$disconnect')));
  });
}

/** `$connect`'s answer decides: a 2xx upgrades, anything else is the HTTP answer instead. */
async function connectStatus(invoke: Invoke, connectionId: string, url: URL): Promise<number> {
  const token = url.searchParams.get('token') ?? undefined;
  try {
    const event = eventOf(connectionId, '$connect', { queryStringParameters: token === undefined ? {} : { token } });
    return (await invoke(event)).statusCode;
  } catch (error) {
    log.error('$connect failed', { error: error as Error });
    return 500;
  }
}

function senderOf(held: ReadonlyMap<string, Held>): ConnectionSender {
  return {
    send: (connectionId, frame) => {
      const ws = held.get(connectionId)?.ws;
      if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve('gone');
      return new Promise((resolve) => ws.send(JSON.stringify(frame), (error) => resolve(error ? 'gone' : 'sent')));
    },
  };
}

/** Ends every socket and waits (at most 5 s) for their `$disconnect`s. */
async function closeAll(held: ReadonlyMap<string, Held>): Promise<void> {
  const closing = [...held.values()].map(
    (entry) =>
      new Promise<void>((resolve) => {
        entry.ws.once('close', () => void entry.queue.then(() => resolve()));
        entry.ws.terminate();
      }),
  );
  await Promise.race([Promise.all(closing), new Promise((resolve) => setTimeout(resolve, 5_000).unref())]);
}

/**
 * The local cloud's WebSocket API on its HTTP server's port, in front of the same handler as
 * API Gateway's: `$connect` decides the upgrade (a bad token: HTTP 401 before it), each text
 * frame is a route invocation, and the gateway's own limits apply (frame size, idle and total
 * lifetime). Frames go back through `sender`, as PostToConnection does deployed.
 */
export function createLiveGateway(options: LiveGatewayOptions): LocalLiveGateway {
  const limits = {
    idleMs: options.idleMs ?? connectionBounds.idleMs,
    maxLifetimeMs: options.maxLifetimeMs ?? connectionBounds.maxLifetimeMs,
  };
  const timeoutMs = options.timeoutMs ?? 30_000;
  const held = new Map<string, Held>();
  const wss = new WebSocketServer({ noServer: true, maxPayload: connectionBounds.maxFrameBytes });
  const invoke: Invoke = (event) => options.handler(event, lambdaContext('liveSocket', timeoutMs));

  const upgrade = async (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    const url = URL.parse(req.url ?? '/', 'http://localhost');
    if (url?.pathname !== livePath) return refuse(socket, 404);
    const connectionId = newConnectionId();
    const status = await connectStatus(invoke, connectionId, url);
    if (status < 200 || status > 299) return refuse(socket, status);
    // The client left while $connect ran: what it accepted is forgotten again.
    if (socket.destroyed) return void (await invoke(eventOf(connectionId, '$disconnect')).catch(() => undefined));
    wss.handleUpgrade(req, socket, head, (ws) => attach(held, connectionId, ws, invoke, limits));
  };

  return {
    sender: senderOf(held),
    upgrade: (req, socket, head) => void upgrade(req, socket, head),
    get open() {
      return held.size;
    },
    close: async () => {
      await closeAll(held);
      wss.close();
    },
  };
}
