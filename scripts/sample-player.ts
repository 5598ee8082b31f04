import { createInterface } from 'node:readline';
import { Command, InvalidArgumentError } from 'commander';
import WebSocket from 'ws';
import {
  createRoomkeeperClient,
  dataOf,
  findOrCreate,
  joinRoom,
  waitUntilReady,
  type JoinResult,
  type RoomkeeperClient,
} from '../client';

/**
 * A terminal player for the sample game: gets a reservation through the typed client (join a
 * room by id, or find or create one of a game version), or takes one a join returned, then
 * connects, sends the registration key as the first message, prints what the room says, and
 * sends each line typed as chat.
 *
 *   npm run play -- --game sample --game-version 1.0.0 --account alice
 *   npm run play -- --room <roomId> --account bob
 *   npm run play -- --port 38000 --key <reservation.key>
 */
interface Options {
  readonly key?: string;
  readonly port?: number;
  readonly host: string;
  readonly room?: string;
  readonly game?: string;
  readonly gameVersion?: string;
  readonly account: string;
  readonly url: string;
}

const program = new Command()
  .name('sample-player')
  .option('--room <roomId>', 'join this room')
  .option('--game <gameId>', 'find or create a room of this game (with --game-version)')
  .option('--game-version <version>', 'the version of --game')
  .option('--account <name>', 'the account a local token is minted for (else ROOMKEEPER_TOKEN)', 'player')
  .option('--url <url>', 'the API', process.env.ROOMKEEPER_URL ?? `http://127.0.0.1:${process.env.PORT ?? '3000'}`)
  .option('--key <key>', 'registration key from a reservation (with --port): no join')
  .option('--port <port>', 'first port of the reservation', (v) => {
    const port = Number(v);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new InvalidArgumentError('must be a port');
    return port;
  })
  .option('--host <host>', 'host of the reservation', '127.0.0.1')
  .parse(process.argv);
const options = program.opts<Options>();

/** ROOMKEEPER_TOKEN, else a token the local cloud mints for `--account`. */
async function tokenFor(client: RoomkeeperClient): Promise<string> {
  const given = process.env.ROOMKEEPER_TOKEN;
  if (given !== undefined && given !== '') return given;
  const answer = await client.POST('/v1/dev/tokens', { body: { account: options.account } });
  return dataOf(answer).access_token;
}

/** The reservation to connect with: joined or found through the API (retried on 503/429), waited for while spawning. */
async function reserve(): Promise<{ key: string; host: string; port: number }> {
  const token = await tokenFor(createRoomkeeperClient({ baseUrl: options.url }));
  const client = createRoomkeeperClient({ baseUrl: options.url, token });
  let joined: JoinResult;
  if (options.room !== undefined) joined = await joinRoom(client, options.room);
  else if (options.game !== undefined && options.gameVersion !== undefined)
    joined = await findOrCreate(client, { gameId: options.game, version: options.gameVersion });
  else throw new Error('give --room, or --game with --game-version, or --key with --port');
  const room = joined.room.state === 'spawning' ? await waitUntilReady(client, joined.room.roomId) : joined.room;
  if (room.state !== 'ready') throw new Error(`room ${room.roomId} is ${room.state}`);
  const { key, host, ports } = joined.reservation;
  const port = ports?.[0];
  if (host === undefined || port === undefined) throw new Error(`room ${room.roomId} has no game server to connect to`);
  process.stderr.write(`joined room ${room.roomId} as ${options.account}\n`);
  return { key, host, port };
}

function play({ key, host, port }: { key: string; host: string; port: number }): void {
  const socket = new WebSocket(`ws://${host}:${port}`);
  // The room's first message answers the key (welcome or error). Input that ends (Ctrl-D, a
  // closed pipe) leaves the room, but only after that answer, so a player sees whether it got in.
  let answered: () => void = () => undefined;
  const answer = new Promise<void>((resolve) => (answered = resolve));
  socket.on('open', () => {
    socket.send(key);
    createInterface({ input: process.stdin })
      .on('line', (line) => socket.send(line))
      .on('close', () => void answer.then(() => socket.close(1000, 'input ended')));
  });
  socket.on('message', (data) => {
    process.stdout.write(`${String(data)}\n`);
    answered();
  });
  socket.on('close', (code, reason) => {
    process.stdout.write(`connection closed (${code}${reason.length ? `: ${reason}` : ''})\n`);
    process.exit(0);
  });
  socket.on('error', (error) => {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  });
}

const direct =
  options.key !== undefined && options.port !== undefined
    ? Promise.resolve({ key: options.key, host: options.host, port: options.port })
    : reserve();
direct.then(play, (error: unknown) => {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
});
