import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from './schema';

/**
 * The typed Roomkeeper client (docs/client.md): an openapi-fetch client over the types
 * generated from docs/openapi.json, and the few helpers a game client needs. It runs in a
 * browser and in Node ≥ 22 alike, so it uses only `fetch`, `WebSocket` and
 * `crypto.randomUUID` and imports nothing of the platform's own code.
 */

export type { components, paths } from './schema';
type Schemas = components['schemas'];
export type Room = Schemas['Room'];
export type Reservation = Schemas['Reservation'];
export type RoomWithReservation = Schemas['RoomWithReservation'];
export type LiveClientFrame = Schemas['LiveClientFrame'];
export type LiveServerFrame = Schemas['LiveServerFrame'];
export type RoomkeeperClient = Client<paths>;

/** A bearer token, or a function asked before every request (so a caller can refresh it). */
export type TokenSource = string | (() => string | Promise<string>);

const tokenOf = async (token: TokenSource): Promise<string> => (typeof token === 'string' ? token : token());

/** The API answered with an error status: its `{ error: { code, message, details } }`. */
export class ApiError extends Error {
  override readonly name = 'ApiError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: unknown,
    /** The answer's `Retry-After`, in seconds, when it had one. */
    readonly retryAfterS?: number,
  ) {
    super(message);
  }

  /** The error of a response: the platform's Error body, or API Gateway's own `{ message }`. */
  static from(response: Response, body: unknown, now = Date.now()): ApiError {
    const retryAfterS = retryAfterSeconds(response.headers.get('retry-after'), now);
    const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } } | undefined)?.error;
    if (error !== undefined && typeof error.code === 'string' && typeof error.message === 'string')
      return new ApiError(response.status, error.code, error.message, error.details, retryAfterS);
    const message = (body as { message?: unknown } | undefined)?.message;
    return new ApiError(
      response.status,
      gatewayCodes[response.status] ?? `HTTP_${response.status}`,
      typeof message === 'string' ? message : `HTTP ${response.status} ${response.statusText}`.trim(),
      undefined,
      retryAfterS,
    );
  }
}

/** The codes of statuses API Gateway answers itself with a bare `{ message }` (docs/api.md). */
const gatewayCodes: Partial<Record<number, string>> = {
  401: 'UNAUTHORIZED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'PAYLOAD_TOO_LARGE',
  429: 'RATE_LIMITED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

/** No answer at all: the API could not be reached (refused, DNS, TLS, reset). */
export class ConnectionError extends Error {
  override readonly name = 'ConnectionError';
  constructor(
    readonly url: string,
    options?: { cause?: unknown },
  ) {
    super(`cannot reach ${url}${causeText(options?.cause)}`, options);
  }
}

function causeText(cause: unknown): string {
  const inner = (cause as { cause?: { code?: unknown; message?: unknown } } | undefined)?.cause;
  const detail = inner?.code ?? inner?.message ?? (cause as Error | undefined)?.message;
  return typeof detail === 'string' ? `: ${detail}` : '';
}

/** `Retry-After` as seconds: either form HTTP allows (delay seconds or an HTTP date). */
export function retryAfterSeconds(header: string | null, now: number): number | undefined {
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

export interface ClientOptions {
  /** The API's URL: `http://127.0.0.1:3000` locally, the stack's ApiUrl deployed. */
  readonly baseUrl: string;
  readonly token?: TokenSource;
  /** Another fetch (tests, instrumented fetches); the global one by default. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

const isAbort = (error: unknown): boolean =>
  (error as Error | undefined)?.name === 'AbortError' || (error as Error | undefined)?.name === 'TimeoutError';

/** A client of every route in docs/openapi.json; each call resolves to `{ data | error, response }`. */
export function createRoomkeeperClient(options: ClientOptions): RoomkeeperClient {
  const base = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const client = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    // A failure to connect becomes a ConnectionError, so a caller tells "no answer" from "an error answer".
    fetch: async (request) => {
      try {
        return await base(request);
      } catch (error) {
        if (isAbort(error)) throw error;
        throw new ConnectionError(options.baseUrl, { cause: error });
      }
    },
  });
  const token = options.token;
  if (token !== undefined)
    client.use({
      async onRequest({ request }) {
        request.headers.set('authorization', `Bearer ${await tokenOf(token)}`);
        return request;
      },
    });
  return client;
}

/** An openapi-fetch result's data, or its ApiError thrown. */
export function dataOf<D>(result: { data?: D; error?: unknown; response: Response }): D {
  if (!result.response.ok) throw ApiError.from(result.response, result.error);
  return result.data as D;
}

export interface RetryOptions {
  /** Sent as `Idempotency-Key`, the same on every attempt; a random UUID by default. */
  readonly idempotencyKey?: string;
  /** Attempts in all, the first included (default 5). */
  readonly maxAttempts?: number;
  /** The longest wait between two attempts, whatever Retry-After asks (default 30 s). */
  readonly maxDelayS?: number;
  readonly signal?: AbortSignal;
  /** Told before each wait: which attempt failed, how long until the next, and why (a UI may show it). */
  readonly onRetry?: (retry: { attempt: number; delayMs: number; error: ApiError | ConnectionError }) => void;
}

/** A join's or a creation's answer: 200/201 ready, 202 still spawning (poll with `waitUntilReady`). */
export type JoinResult = RoomWithReservation & { readonly status: number; readonly idempotencyKey: string };

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** Statuses worth another attempt: the platform or the gateway asks to come back later. */
const retryable = new Set([429, 503]);

/**
 * Calls `attempt` until it answers something other than 429/503 or no answer at all, waiting
 * Retry-After (else 1, 2, 4… s) between attempts. Every attempt carries one Idempotency-Key, so
 * a request that did land but whose answer was lost is answered again, never applied twice.
 */
async function withRetry(
  call: (key: string, signal?: AbortSignal) => Promise<{ data?: unknown; error?: unknown; response: Response }>,
  options: RetryOptions,
): Promise<JoinResult> {
  const key = options.idempotencyKey ?? globalThis.crypto.randomUUID();
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const maxDelayMs = (options.maxDelayS ?? 30) * 1000;
  for (let attempt = 1; ; attempt++) {
    const outcome = await call(key, options.signal).catch((thrown: unknown) => {
      if (thrown instanceof ConnectionError) return thrown;
      throw thrown;
    });
    let error: ApiError | ConnectionError;
    if (outcome instanceof ConnectionError) error = outcome;
    else if (outcome.response.ok)
      return { ...(outcome.data as RoomWithReservation), status: outcome.response.status, idempotencyKey: key };
    else error = ApiError.from(outcome.response, outcome.error);
    if (error instanceof ApiError && !retryable.has(error.status)) throw error;
    if (attempt >= maxAttempts) throw error;
    const waitS = (error instanceof ApiError ? error.retryAfterS : undefined) ?? 2 ** (attempt - 1);
    const delayMs = Math.min(waitS * 1000, maxDelayMs);
    options.onRetry?.({ attempt, delayMs, error });
    await sleep(delayMs, options.signal);
  }
}

type Body<P extends keyof paths> = paths[P] extends {
  post: { requestBody?: { content: { 'application/json': infer B } } };
}
  ? B
  : never;
export type CreateRoomRequest = Body<'/v1/rooms'>;
export type JoinRoomRequest = Body<'/v1/rooms/{roomId}/join'>;
export type MatchmakingRequest = Body<'/v1/matchmaking/join'>;

/** `POST /v1/rooms/{roomId}/join` with an Idempotency-Key, retried on 429/503 and lost answers. */
export function joinRoom(
  client: RoomkeeperClient,
  roomId: string,
  body: JoinRoomRequest = {},
  options: RetryOptions = {},
): Promise<JoinResult> {
  return withRetry(
    (key, signal) =>
      client.POST('/v1/rooms/{roomId}/join', {
        params: { path: { roomId }, header: { 'idempotency-key': key } },
        body,
        signal,
      }),
    options,
  );
}

/** `POST /v1/rooms`: creates a room holding the caller's slot; retried as `joinRoom` is. */
export function createRoom(
  client: RoomkeeperClient,
  body: CreateRoomRequest,
  options: RetryOptions = {},
): Promise<JoinResult> {
  return withRetry(
    (key, signal) => client.POST('/v1/rooms', { params: { header: { 'idempotency-key': key } }, body, signal }),
    options,
  );
}

/** `POST /v1/matchmaking/join`: an open room matching `criteria`, else a new one; retried as `joinRoom` is. */
export function findOrCreate(
  client: RoomkeeperClient,
  body: MatchmakingRequest,
  options: RetryOptions = {},
): Promise<JoinResult> {
  return withRetry(
    (key, signal) =>
      client.POST('/v1/matchmaking/join', { params: { header: { 'idempotency-key': key } }, body, signal }),
    options,
  );
}

/**
 * Reads the room until it is no longer spawning, waiting the Retry-After each answer gives
 * (1 s locally, 5 s on ECS). Resolves with the room, ready or failed; a caller that wants a
 * bound passes a signal (`AbortSignal.timeout(ms)`).
 */
export async function waitUntilReady(
  client: RoomkeeperClient,
  roomId: string,
  options: { readonly signal?: AbortSignal } = {},
): Promise<Room> {
  for (;;) {
    const result = await client.GET('/v1/rooms/{roomId}', { params: { path: { roomId } }, signal: options.signal });
    const { room } = dataOf(result);
    if (room.state !== 'spawning') return room;
    const waitS = retryAfterSeconds(result.response.headers.get('retry-after'), Date.now()) ?? 1;
    await sleep(waitS * 1000, options.signal);
  }
}

export interface LiveSocketOptions {
  /** The API's URL: the socket is `/v1/live` on it (the local cloud). */
  readonly baseUrl?: string;
  /** The socket's own URL (deployed: the stack output LiveUrl); wins over baseUrl. */
  readonly liveUrl?: string;
  readonly token: TokenSource;
  readonly onFrame: (frame: LiveServerFrame) => void;
  /** Another WebSocket class; the global one by default. */
  readonly WebSocket?: typeof WebSocket;
}

export interface LiveSocket {
  /** Taps for this room (members and admins only); `since`: the last change number seen. */
  subscribe(roomId: string, options?: { since?: number; minTapIntervalMs?: number }): void;
  unsubscribe(roomId: string): void;
  ping(): void;
  close(): void;
  /** Settles when the socket closes, with the close code and reason. */
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** The live socket's URL: `liveUrl`, else the API's `/v1/live` with ws(s), with the token as its query. */
export function liveSocketUrl(options: { baseUrl?: string; liveUrl?: string }, token: string): string {
  const given = options.liveUrl ?? options.baseUrl;
  if (given === undefined) throw new TypeError('openLiveSocket needs baseUrl or liveUrl');
  const url = options.liveUrl !== undefined ? new URL(given) : new URL('/v1/live', given);
  if (url.protocol === 'http:') url.protocol = 'ws:';
  if (url.protocol === 'https:') url.protocol = 'wss:';
  url.searchParams.set('token', token);
  return url.toString();
}

/**
 * Opens the live-session socket (docs/live.md) and resolves once it is open. A refused upgrade
 * (a bad token answers 401) or an unreachable URL rejects with a ConnectionError: a WebSocket
 * does not tell the two apart.
 */
export async function openLiveSocket(options: LiveSocketOptions): Promise<LiveSocket> {
  const url = liveSocketUrl(options, await tokenOf(options.token));
  const Socket = options.WebSocket ?? globalThis.WebSocket;
  const socket = new Socket(url);
  const send = (frame: LiveClientFrame) => socket.send(JSON.stringify(frame));
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.addEventListener('close', (event) => resolve({ code: event.code, reason: event.reason })),
  );
  socket.addEventListener('message', (event) => {
    if (typeof event.data !== 'string') return;
    let frame: unknown;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    if (typeof (frame as { type?: unknown } | null)?.type === 'string') options.onFrame(frame as LiveServerFrame);
  });
  await new Promise<void>((resolve, reject) => {
    socket.addEventListener('open', () => resolve(), { once: true });
    void closed.then(() => reject(new ConnectionError(url.replace(/token=[^&]*/, 'token=…'))));
  });
  return {
    subscribe: (roomId, more = {}) => send({ action: 'subscribe', roomId, ...more }),
    unsubscribe: (roomId) => send({ action: 'unsubscribe', roomId }),
    ping: () => send({ action: 'ping' }),
    close: () => socket.close(1000),
    closed,
  };
}
