/**
 * The sample game server: a tiny chat room that follows docs/game-server-protocol.md.
 *
 *   sample-game <zeromq endpoint> <ports> [other…]
 *
 * Players connect with WebSocket on the first port, send their registration key, then chat.
 * Environment: the protocol's variables (`room_settings`, `game_max_players`, …) and, from
 * the configuration, `SAMPLE_GAME_HOST` (listen address, default 0.0.0.0).
 */
import { WebSocketServer } from 'ws';
import * as z from 'zod';
import { assignMethod, platformNotices, rpcMethods } from '../../core/protocol/game-methods';
import { ControllerClient } from './controller-client';
import { rpcErrorCodes } from '../../core/protocol/jsonrpc';
import { log } from './log';
import { sampleProtocol } from './protocol';
import { ChatRoom, type ChatState } from './room';

/** The controller's answer to a save sooner than a second after the last. */
const saveRefusedTooSoon = rpcErrorCodes.notAllowed;

const argsSchema = z.tuple([z.string().regex(/^(ipc|tcp):\/\//), z.string().regex(/^\d+(,\d+)*$/)]).rest(z.string());
const jsonObject = z
  .string()
  .default('{}')
  .transform((text) => z.record(z.string(), z.unknown()).catch({}).parse(safeJson(text)));
const envSchema = z.object({
  room_settings: jsonObject,
  game_max_players: z.coerce.number().int().min(1).default(8),
  /** `1`: started for the warm pool; the room comes later with `assign`. */
  standby: z.literal('1').optional(),
  SAMPLE_GAME_HOST: z.string().default('0.0.0.0'),
});

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const args = argsSchema.safeParse(process.argv.slice(2));
  if (!args.success) {
    log('error', 'usage: sample-game <zeromq endpoint> <ports> [other…]');
    process.exit(2);
  }
  const [endpoint, ports] = args.data;
  const env = envSchema.parse(process.env);
  const port = Number(ports.split(',')[0]);

  const controller = new ControllerClient(endpoint);
  const room = new ChatRoom({
    joined: (key, wanted) => controller.callUntilAnswered('joined', { key }, wanted),
    left: (key) => controller.callUntilAnswered('left', { key }),
    toOwner: (data) => controller.notify('message', { data }),
    save: saver(controller),
  });
  const server = new WebSocketServer({ host: env.SAMPLE_GAME_HOST, port, maxPayload: 4096 });
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  room.attach(server);

  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    log('info', 'shutting down', { reason });
    await room.closeAll(reason);
    server.close();
    controller.close();
    process.exit(0);
  };
  controller
    .handle('status', () => ({ status: 'ok' }))
    .handle('shutdown', (params) => {
      // Answer first, then close: the controller is waiting for neither.
      setImmediate(
        () => void stop(z.object({ reason: z.string() }).catch({ reason: 'shutdown' }).parse(params).reason),
      );
      return {};
    })
    .handle(assignMethod, (params) => {
      // The warm pool's hand-over: this server is now the room these settings describe.
      const assigned = assignSchema.parse(params);
      // Logged once the answer is on its way: a player's create waits for the answer, not the log.
      setImmediate(() =>
        log('info', 'assigned a room', {
          roomId: assigned.room_id,
          map: assigned.room_settings.map ?? 'harbor',
          maxPlayers: assigned.game_max_players,
          sinceProcessStartMs: Math.round(performance.now()),
        }),
      );
      return { status: 'OK' };
    })
    .handle('protocol_mismatch', logMismatch)
    .handle('say', (params) => {
      const text = z.object({ text: z.string().max(500) }).parse(params).text;
      // The answer goes back to the owner who sent the command (POST /v1/rooms/{roomId}/commands).
      return { delivered: room.broadcast({ type: 'announce', text }), players: room.accounts };
    });
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));

  const settings = { ...env.room_settings, map: env.room_settings.map ?? 'harbor', maxPlayers: env.game_max_players };
  // A standby server accepts the pool's protocol and reports no settings: its room has none yet.
  // Either reports its build, so players of another client build are kept out.
  const protocol = sampleProtocol();
  const initedParams = env.standby ? { standby: true, protocol } : { settings, protocol };
  // The controller's own failures (-32004 no answer in time, -32603 SQS unreachable) are not a
  // refusal: the protocol lets the game call again, and a retry is answered as the first was.
  const inited = await controller.callUntilAnswered('inited', initedParams);
  if ('error' in inited) {
    // The protocol: an error result to inited means the game must exit.
    log('error', 'inited refused', { code: inited.error.code, message: inited.error.message });
    controller.close();
    server.close();
    process.exit(1);
  }
  // A replacement server (its room's server died): the chat goes on from what was saved.
  if (inited.result.restore) {
    room.restore(inited.result.restore.state);
    log('info', 'restored the saved state', { savedInEpoch: inited.result.restore.epoch });
  }
  log('info', 'ready', {
    port,
    map: settings.map,
    protocol: protocol.hash,
    sinceProcessStartMs: Math.round(performance.now()),
  });
}

/**
 * Saves the room's state after each change, one `save_state` at a time: a change made while
 * one is on its way is saved next (only the latest matters), so a busy room sends no backlog.
 * The controller takes one save a second (-32003 for more): a refused state is sent again a
 * second later unless a newer one replaced it.
 */
function saver(controller: ControllerClient): (state: ChatState) => void {
  let saving = false;
  let next: ChatState | undefined;
  const drain = async () => {
    saving = true;
    while (next) {
      const state = next;
      next = undefined;
      const answer = await controller.callUntilAnswered('save_state', { state });
      if ('error' in answer && answer.error.code === saveRefusedTooSoon) {
        next ??= state;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      } else if ('error' in answer) log('warn', 'state not saved', { code: answer.error.code });
    }
    saving = false;
  };
  return (state) => {
    next = state;
    if (!saving) void drain();
  };
}

/** A player of another client build was refused (a notification): worth a line in the server's log. */
function logMismatch(params: unknown): undefined {
  const notice = platformNotices.protocol_mismatch.params.safeParse(params);
  if (notice.success) log('warn', 'a player of another build was refused', notice.data);
  return undefined;
}

/** The params of the warm pool's hand-over, as the protocol's table declares them. */
const assignSchema = rpcMethods.assign.params;

void main();
