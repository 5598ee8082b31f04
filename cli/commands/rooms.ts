import { setTimeout as sleep } from 'node:timers/promises';
import { Command, InvalidArgumentError } from 'commander';
import { ApiError, type LiveServerFrame, type Room } from '../../client';
import { call, liveSocketOf, targetOf, type CliIo, type GlobalOptions, type Target } from '../context';
import { integerOption } from '../options';
import { printFields, printJson, printJsonLine, printTable, withProgress } from '../output';

/** `rooms list|get|watch|close` and `members list|remove`. */

interface ListOptions extends GlobalOptions {
  readonly game?: string;
  readonly gameVersion?: string;
  readonly region?: string;
  readonly state?: 'spawning' | 'ready';
  readonly template?: string;
  readonly limit?: number;
}

/** Every live room the filters keep, page after page (at most `limit` when given). */
async function listRooms(target: Target, options: ListOptions, signal: AbortSignal): Promise<Room[]> {
  const rooms: Room[] = [];
  let nextToken: string | undefined;
  do {
    const page = await call(
      target.client.GET('/v1/admin/rooms', {
        params: {
          query: {
            gameId: options.game,
            version: options.gameVersion,
            region: options.region,
            state: options.state,
            template: options.template,
            limit: 100,
            nextToken,
          },
        },
        signal,
      }),
    );
    rooms.push(...page.rooms);
    nextToken = page.nextToken;
  } while (nextToken !== undefined && (options.limit === undefined || rooms.length < options.limit));
  return options.limit === undefined ? rooms : rooms.slice(0, options.limit);
}

function roomRows(rooms: readonly Room[]): (string | number | null | undefined)[][] {
  return rooms.map((room) => [
    room.roomId,
    `${room.gameId}@${room.version}`,
    room.region,
    room.state,
    `${room.players}/${room.maxPlayers}`,
    room.template,
    room.changeNumber,
  ]);
}

const roomHead = ['room', 'game', 'region', 'state', 'players', 'template', 'change'];

function printRoom(io: CliIo, room: Room): void {
  const { members, ...fields } = room;
  printFields(io, fields);
  if (members !== undefined)
    printTable(
      io,
      ['member', 'state', 'expires'],
      members.map((m) => [m.account, m.state, (m as { expiresAt?: string }).expiresAt]),
      '(no members)',
    );
}

const stateOption = (value: string): 'spawning' | 'ready' => {
  if (value !== 'spawning' && value !== 'ready') throw new InvalidArgumentError('must be spawning or ready');
  return value;
};

function addFilters(command: Command): Command {
  return command
    .option('--game <gameId>', 'only rooms of this game')
    .option('--game-version <version>', 'only rooms of this game version (with --game)')
    .option('--region <region>', 'only rooms in this region')
    .option('--state <state>', 'only rooms in this state: spawning or ready', stateOption)
    .option('--template <name>', 'only sessions made from this template');
}

/** What changed between two lists: a line (or a JSON value) per room added, changed or gone. */
function diffRooms(before: Map<string, Room>, after: readonly Room[]) {
  const events: { event: 'added' | 'changed' | 'removed'; room: Room }[] = [];
  const seen = new Set<string>();
  for (const room of after) {
    seen.add(room.roomId);
    const old = before.get(room.roomId);
    if (old === undefined) events.push({ event: 'added', room });
    else if (old.changeNumber !== room.changeNumber || old.state !== room.state || old.players !== room.players)
      events.push({ event: 'changed', room });
  }
  for (const [roomId, room] of before) if (!seen.has(roomId)) events.push({ event: 'removed', room });
  return events;
}

/** Re-lists the live rooms every `intervalS` until interrupted, printing what changed. */
async function watchList(target: Target, options: ListOptions & { interval: number }, io: CliIo): Promise<void> {
  const known = new Map<string, Room>();
  for (;;) {
    const rooms = await listRooms(target, options, io.signal);
    for (const { event, room } of diffRooms(known, rooms)) {
      if (options.json === true) printJsonLine(io, { event, room });
      else
        io.stdout(
          `${io.now().toISOString()} ${event.padEnd(7)} ${room.roomId} ${room.state} ${room.players}/${room.maxPlayers}\n`,
        );
      if (event === 'removed') known.delete(room.roomId);
      else known.set(room.roomId, room);
    }
    await sleep(options.interval * 1000, undefined, { signal: io.signal });
  }
}

const liveErrorStatus: Record<string, number> = { BAD_FRAME: 400, FORBIDDEN: 403, NOT_FOUND: 404 };

/** A live `error` frame as the ApiError the same refusal over HTTP would be (exit code 1). */
export function liveError(frame: Extract<LiveServerFrame, { type: 'error' }>): ApiError {
  return new ApiError(liveErrorStatus[frame.code] ?? 503, frame.code, frame.message);
}

/** Follows one room over the live socket: the room again on each tap, until it ends or Ctrl-C. */
async function watchRoom(target: Target, roomId: string, json: boolean, io: CliIo): Promise<void> {
  const read = async () => (await call(target.client.GET('/v1/rooms/{roomId}', { params: { path: { roomId } } }))).room;
  const show = async (tap?: LiveServerFrame, room?: Room) => {
    room ??= await read();
    if (json) printJsonLine(io, { tap, room });
    else
      io.stdout(
        `${io.now().toISOString()} ${room.roomId} ${room.state} ${room.players}/${room.maxPlayers} #${room.changeNumber}${tap?.type === 'tap' ? ` (${tap.changes.join(', ')})` : ''}\n`,
      );
  };
  let settle: (error?: Error) => void = () => undefined;
  const done = new Promise<void>((resolve, reject) => (settle = (error) => (error ? reject(error) : resolve())));
  // Settled by whichever comes first; a later settle (the socket closing at the end) is ignored.
  done.catch(() => undefined);
  let queue = Promise.resolve();
  const live = await liveSocketOf(target, (frame) => {
    if (frame.type === 'tap') queue = queue.then(() => show(frame)).catch(settle);
    if (frame.type === 'error') settle(liveError(frame));
    if (frame.type === 'ended') {
      if (json) printJsonLine(io, { ended: frame });
      else io.stdout(`${io.now().toISOString()} ${roomId} ended: ${frame.reason}\n`);
      settle();
    }
  });
  io.signal.addEventListener('abort', () => settle(new Error('interrupted')), { once: true });
  void live.closed.then(({ code }) => settle(code === 1000 ? undefined : new Error(`live socket closed (${code})`)));
  try {
    // Subscribed since the change number read: a change between the read and the subscription comes as a tap at once.
    const first = await read();
    live.subscribe(roomId, { since: first.changeNumber });
    await show(undefined, first);
    await done;
  } finally {
    live.close();
  }
}

const globals = (command: Command) => command.optsWithGlobals<GlobalOptions & Record<string, unknown>>();

function roomsCommand(io: CliIo): Command {
  const rooms = new Command('rooms').description('live rooms: list, read, follow, close');
  addFilters(rooms.command('list').description('list live rooms (admin), every page'))
    .option('--limit <n>', 'at most this many rooms', integerOption(1, 100_000))
    .action(async (_options: unknown, command: Command) => {
      const options = globals(command) as unknown as ListOptions;
      const target = await targetOf(options, io);
      const listed = await withProgress(io, 'listing rooms', () => listRooms(target, options, io.signal));
      if (options.json === true) printJson(io, { rooms: listed });
      else printTable(io, roomHead, roomRows(listed), '(no live rooms)');
    });
  rooms
    .command('get')
    .description('read one room (as an admin sees it)')
    .argument('<roomId>')
    .action(async (roomId: string, _options: unknown, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const answer = await call(target.client.GET('/v1/rooms/{roomId}', { params: { path: { roomId } } }));
      if (options.json === true) printJson(io, answer);
      else printRoom(io, answer.room);
    });
  addFilters(
    rooms
      .command('watch')
      .description('follow one room over the live socket, or (no id) the live rooms list, until Ctrl-C')
      .argument('[roomId]'),
  )
    .option('--interval <s>', 'seconds between two lists (no room id)', integerOption(1, 3600), 1)
    .action(async (roomId: string | undefined, _options: unknown, command: Command) => {
      const options = globals(command) as unknown as ListOptions & { interval: number };
      const target = await targetOf(options, io);
      if (roomId === undefined) await watchList(target, options, io);
      else await watchRoom(target, roomId, options.json === true, io);
    });
  rooms
    .command('close')
    .description('end a live room (admin): its reservations end and its server stops')
    .argument('<roomId>')
    .action(async (roomId: string, _options: unknown, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const answer = await call(
        target.client.POST('/v1/admin/rooms/{roomId}/close', { params: { path: { roomId } }, signal: io.signal }),
      );
      if (options.json === true) printJson(io, answer);
      else printRoom(io, answer.room);
    });
  return rooms;
}

function membersCommand(io: CliIo): Command {
  const members = new Command('members').description("a room's members: list, remove");
  members
    .command('list')
    .description("a session's live members (admin), every page")
    .argument('<roomId>')
    .action(async (roomId: string, _options: unknown, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const all: { account: string; state: string; properties: unknown }[] = [];
      let cursor: string | undefined;
      do {
        const page = await call(
          target.client.GET('/v1/rooms/{roomId}/members', { params: { path: { roomId }, query: { cursor } } }),
        );
        all.push(...page.members);
        cursor = page.cursor;
      } while (cursor !== undefined);
      if (options.json === true) printJson(io, { members: all });
      else
        printTable(
          io,
          ['member', 'state', 'properties'],
          all.map((m) => [m.account, m.state, JSON.stringify(m.properties)]),
          '(no members)',
        );
    });
  members
    .command('remove')
    .description(
      'remove a member of a room: its slot frees and its key stops working (an admin token; with --epoch, as the arbiter of that epoch)',
    )
    .argument('<roomId>')
    .argument('<account>')
    .option('--epoch <epoch>', "act as the session's arbiter of this host epoch (X-Host-Epoch) instead of as an admin")
    .action(async (roomId: string, account: string, local: { epoch?: string }, command: Command) => {
      const options = globals(command);
      const target = await targetOf(options, io);
      const header = local.epoch === undefined ? {} : { 'x-host-epoch': local.epoch };
      const answer = await call(
        target.client.DELETE('/v1/rooms/{roomId}/members/{account}', {
          params: { path: { roomId, account }, header },
          signal: io.signal,
        }),
      );
      // 204: the removal ended the session (its last member), so there is no room to show.
      if (options.json === true) printJson(io, answer ?? {});
      else if (answer) printRoom(io, answer.room);
      else io.stdout(`removed ${account}; the session ended with its last member\n`);
    });
  return members;
}

export function addRoomCommands(root: Command, io: CliIo): void {
  root.addCommand(roomsCommand(io));
  root.addCommand(membersCommand(io));
}
