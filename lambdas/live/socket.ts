import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import * as z from 'zod';
import { AuthTokenInvalidError, PlatformError } from '../../core/errors';
import type { TokenVerifier } from '../../core/auth/tokens';
import { asDependencyUnavailable } from '../../core/infra/dependency-errors';
import { childLogger } from '../../core/infra/logger';
import { subscribeAccess } from '../../core/live/access';
import type { ConnectionSender } from '../../core/live/connection-sender';
import { clientFrameSchema, type ClientFrame, type ServerFrame } from '../../core/live/messages';
import type { LiveConnection, LiveConnections } from '../../core/live/subscription-store';
import { changesSince } from '../../core/rooms/change-kinds';
import type { RoomStore, SocketHeard } from '../../core/rooms/room-store';
import { platform } from '../dependencies';

/**
 * The one handler of every route of the live-session WebSocket API (docs/live.md): `$connect`
 * verifies the token in the query (a bad one: 401, the upgrade is refused), `$disconnect`
 * forgets the socket, and every frame (`subscribe`, `unsubscribe`, `ping`, anything else on
 * `$default`) is parsed here and answered with frames sent to the socket. A frame that does
 * not parse gets an error frame; nothing a client sends ends the socket.
 */

/** The parts of API Gateway's WebSocket event (payload format 1.0) this handler reads. */
const socketEventSchema = z.object({
  requestContext: z.object({
    routeKey: z.string(),
    connectionId: z.string().min(1),
    requestId: z.string().optional(),
  }),
  queryStringParameters: z.record(z.string(), z.string().optional()).nullish(),
  body: z.string().nullish(),
  isBase64Encoded: z.boolean().optional(),
});
export type SocketEvent = z.input<typeof socketEventSchema>;

/** What API Gateway reads of the answer: only `$connect`'s status decides anything (non-2xx refuses the socket). */
export interface SocketResult {
  readonly statusCode: number;
}

export type SocketHandler = (event: SocketEvent, context: Context) => Promise<SocketResult>;

export interface SocketDependencies {
  readonly live: LiveConnections;
  readonly sender: ConnectionSender;
  readonly rooms: Pick<RoomStore, 'read' | 'noteSocketAlive' | 'noteSocketLost'>;
  readonly verifyToken: TokenVerifier;
  readonly now: () => Date;
}

const log = childLogger('live');

export function platformSocketDependencies(): SocketDependencies {
  const p = platform();
  return {
    live: p.liveSubscriptions,
    sender: p.connectionSender,
    rooms: p.rooms,
    verifyToken: p.verifyToken,
    now: p.now,
  };
}

const adminScope = 'admin';

async function connect(connectionId: string, token: string | undefined, deps: SocketDependencies): Promise<number> {
  let principal;
  try {
    if (!token) throw new AuthTokenInvalidError('A token is required in the `token` query parameter.');
    principal = await deps.verifyToken(token);
  } catch (error) {
    if (error instanceof PlatformError && (error.status === 401 || error.status === 403)) return 401;
    throw error;
  }
  const admin = principal.scopes.includes(adminScope);
  const result = await deps.live.connect({ connectionId, account: principal.account, admin }, deps.now());
  return result === 'connected' ? 200 : 429;
}

/** The socket went away: its subscriptions end, and a member whose last socket to a room it was is seen gone there. */
async function disconnect(connectionId: string, deps: SocketDependencies): Promise<void> {
  const gone = await deps.live.forgetConnection(connectionId);
  if (!gone) return;
  await Promise.all(gone.rooms.map((roomId) => noteLostIfLast(gone, roomId, deps)));
}

async function noteLostIfLast(connection: LiveConnection, roomId: string, deps: SocketDependencies): Promise<void> {
  if (await deps.live.otherSocketsWatch(connection.account, roomId, connection.connectionId)) return;
  await deps.rooms.noteSocketLost(roomId, connection.account, deps.now());
}

function parseFrame(body: string): ClientFrame | string {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    return 'The frame is not JSON.';
  }
  const parsed = clientFrameSchema.safeParse(json);
  if (parsed.success) return parsed.data;
  return `Invalid frame: ${parsed.error.issues
    .map((issue) => `${issue.path.join('.') || 'frame'} ${issue.message}`)
    .join('; ')
    .slice(0, 500)}.`;
}

type SubscribeFrame = Extract<ClientFrame, { action: 'subscribe' }>;

/**
 * Authorized on one read, subscribed, then read again: a change that landed before the
 * subscription was written is in the second read (and so in the answer), any later one reaches
 * the fanout, which now finds the subscription.
 */
async function subscribe(
  connection: LiveConnection,
  frame: SubscribeFrame,
  deps: SocketDependencies,
): Promise<ServerFrame[]> {
  const { roomId } = frame;
  const caller = { account: connection.account, admin: connection.admin };
  const first = await deps.rooms.read(roomId, caller.account);
  const access = subscribeAccess(first, caller, deps.now());
  if (access !== 'member' && access !== 'admin') return [refusal(access, roomId)];
  const options = { since: first?.room.changeNumber ?? 0, minTapIntervalMs: frame.minTapIntervalMs ?? 0 };
  const result = await deps.live.subscribe(connection, roomId, options, deps.now());
  if (result === 'too-many-subscriptions') {
    return [error('TOO_MANY_SUBSCRIPTIONS', 'A socket follows a bounded number of rooms; unsubscribe first.', roomId)];
  }
  if (result === 'no-connection') return [error('UNAVAILABLE', 'The socket is closing; connect again.', roomId)];
  const read = await deps.rooms.read(roomId, caller.account);
  const after = subscribeAccess(read, caller, deps.now());
  if (!read || (after !== 'member' && after !== 'admin')) {
    await deps.live.endSubscription(roomId, connection.connectionId);
    return [refusal(after === 'FORBIDDEN' ? 'FORBIDDEN' : 'NOT_FOUND', roomId)];
  }
  // A change landed between the reads: this answer tells the client of it, so the fanout must
  // not tap it again (late, after a newer one: out of order). The subscription moves on with it.
  if (read.room.changeNumber > options.since) {
    await deps.live.subscribe(connection, roomId, { ...options, since: read.room.changeNumber }, deps.now());
  }
  if (after === 'member') {
    // The read says which of the socket's writes can apply: usually neither.
    const heard = {
      host: read.room.host?.account === connection.account,
      returning: read.doc.members[connection.account]?.d !== undefined,
    };
    if (heard.host || heard.returning) await alive(roomId, connection.account, deps, heard);
  }
  const changeNumber = read.room.changeNumber;
  const frames: ServerFrame[] = [{ type: 'subscribed', roomId, changeNumber }];
  // Behind: one tap at once, naming what changed since (every kind, for a room stored before kinds were kept).
  if (frame.since !== undefined && frame.since < changeNumber) {
    frames.push({ type: 'tap', roomId, changeNumber, changes: changesSince(read.changedAt, frame.since) });
  }
  return frames;
}

function refusal(code: 'FORBIDDEN' | 'NOT_FOUND', roomId: string): ServerFrame {
  return code === 'FORBIDDEN'
    ? error('FORBIDDEN', 'Only live members of the room, and admins, may subscribe to it.', roomId)
    : error('NOT_FOUND', 'No such live room.', roomId);
}

function error(code: Extract<ServerFrame, { type: 'error' }>['code'], message: string, roomId?: string): ServerFrame {
  return { type: 'error', code, message, ...(roomId === undefined ? {} : { roomId }) };
}

/** A member's socket is heard: its presence, and the host's liveness. Never fails the frame. */
/**
 * A ping: whether the account hosts the room, or has a disconnect recorded, is not known
 * without a read, so both writes are sent, each refused where it does not apply. (A disconnect
 * of the account's other socket may be recorded after this socket's subscribe read none.)
 */
const pingHeard: SocketHeard = { host: true, returning: true };

async function alive(
  roomId: string,
  account: string,
  deps: SocketDependencies,
  heard: SocketHeard = pingHeard,
): Promise<void> {
  try {
    await deps.rooms.noteSocketAlive(roomId, account, deps.now(), heard);
  } catch (failure) {
    log.warn('could not note a socket alive', { roomId, error: failure as Error });
  }
}

async function answer(
  connection: LiveConnection,
  frame: ClientFrame,
  deps: SocketDependencies,
): Promise<ServerFrame[]> {
  switch (frame.action) {
    case 'subscribe':
      return subscribe(connection, frame, deps);
    case 'unsubscribe':
      await deps.live.endSubscription(frame.roomId, connection.connectionId);
      if (connection.rooms.includes(frame.roomId)) await noteLostIfLast(connection, frame.roomId, deps);
      return [{ type: 'unsubscribed', roomId: frame.roomId }];
    case 'ping':
      await Promise.all(connection.rooms.map((roomId) => alive(roomId, connection.account, deps)));
      return [{ type: 'pong' }];
  }
}

async function onFrame(connectionId: string, body: string, deps: SocketDependencies): Promise<void> {
  const frame = parseFrame(body);
  let frames: ServerFrame[];
  if (typeof frame === 'string') {
    frames = [error('BAD_FRAME', frame)];
  } else {
    const connection = await deps.live.connection(connectionId);
    frames = connection
      ? await answer(connection, frame, deps)
      : [error('UNAVAILABLE', 'The socket is not known (it expired or is closing); connect again.')];
  }
  for (const out of frames) {
    if ((await deps.sender.send(connectionId, out)) === 'gone') return;
  }
}

function bodyText(event: z.output<typeof socketEventSchema>): string {
  const body = event.body ?? '';
  return event.isBase64Encoded ? Buffer.from(body, 'base64').toString('utf8') : body;
}

/** Every route; a failure is logged and told to the socket as UNAVAILABLE, never thrown at the gateway. */
async function route(raw: SocketEvent, deps: SocketDependencies): Promise<SocketResult> {
  const event = socketEventSchema.parse(raw);
  const { routeKey, connectionId } = event.requestContext;
  try {
    if (routeKey === '$connect')
      return { statusCode: await connect(connectionId, event.queryStringParameters?.token, deps) };
    if (routeKey === '$disconnect') {
      await disconnect(connectionId, deps);
      return { statusCode: 200 };
    }
    await onFrame(connectionId, bodyText(event), deps);
    return { statusCode: 200 };
  } catch (failure) {
    const unavailable = failure instanceof PlatformError ? undefined : asDependencyUnavailable(failure);
    log.error('live socket route failed', {
      routeKey,
      connectionId,
      error: failure as Error,
      unavailable: !!unavailable,
    });
    if (routeKey === '$connect') return { statusCode: unavailable ? 503 : 500 };
    if (routeKey !== '$disconnect') {
      const told = error('UNAVAILABLE', 'The platform could not answer this frame now; retry shortly.');
      await deps.sender.send(connectionId, told).catch(() => undefined);
    }
    return { statusCode: 500 };
  }
}

/** The handler with its dependencies chosen (a test's fakes); `handler` uses the platform's. */
export function socketHandler(deps: () => SocketDependencies = platformSocketDependencies): SocketHandler {
  const handler = middy<SocketEvent, SocketResult>({ timeoutEarlyInMillis: 0 }).handler((event) =>
    route(event, deps()),
  );
  return handler as unknown as SocketHandler;
}

export const handler = socketHandler();
