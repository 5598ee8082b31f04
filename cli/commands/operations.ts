import { Command } from 'commander';
import { call, targetOf, UsageError, type CliIo, type GlobalOptions } from '../context';
import { integerOption } from '../options';
import { ago, duration, printFields, printJson, printTable, withProgress } from '../output';

/** `bans`, `hosts`, `regions`, `pool`, `queues`, `history`: what operators read and fix. */

const globals = (command: Command) => command.optsWithGlobals<GlobalOptions & Record<string, unknown>>();

/** Runs `read` against the target and prints its answer: as JSON, or through `show` for people. */
function action<A extends unknown[], D>(
  io: CliIo,
  read: (target: Awaited<ReturnType<typeof targetOf>>, args: A, options: Record<string, unknown>) => Promise<D>,
  show: (data: D) => void,
) {
  return async (...received: unknown[]) => {
    const command = received[received.length - 1] as Command;
    const options = globals(command);
    const target = await targetOf(options, io);
    const data = await read(target, received.slice(0, -2) as A, options);
    if (options.json === true) printJson(io, data);
    else show(data);
  };
}

/** `--expires-in 7d` or `--expires-at <iso>`: when a ban ends. */
function banExpiry(options: Record<string, unknown>, now: Date): string | undefined {
  const at = options.expiresAt as string | undefined;
  const within = options.expiresIn as string | undefined;
  if (at !== undefined && within !== undefined) throw new UsageError('give --expires-at or --expires-in, not both');
  if (at !== undefined) return at;
  if (within === undefined) return undefined;
  const match = /^(\d+)([smhd])$/.exec(within);
  if (!match) throw new UsageError(`--expires-in: "${within}" is not a duration such as 90m, 12h or 7d`);
  const unit = { s: 1, m: 60, h: 3600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return new Date(now.getTime() + Number(match[1]) * unit * 1000).toISOString();
}

function bansCommand(io: CliIo): Command {
  const bans = new Command('bans').description('account bans (admin): add, read, lift');
  const showBan = ({ ban }: { ban: Record<string, unknown> }) => printFields(io, ban);
  bans
    .command('add')
    .description('ban an account, or replace its ban: its joins and creations answer 403 BANNED')
    .argument('<account>')
    .option('--reason <text>', 'why (for operators; never shown to the player)')
    .option('--expires-at <iso>', 'when the ban ends (ISO 8601)')
    .option('--expires-in <duration>', 'when the ban ends, from now: 90m, 12h, 7d')
    .action(
      action(
        io,
        (target, [account]: [string], options) =>
          call(
            target.client.POST('/v1/admin/bans', {
              body: { account, reason: options.reason as string | undefined, expiresAt: banExpiry(options, io.now()) },
            }),
          ),
        showBan,
      ),
    );
  bans
    .command('get')
    .description('the ban in force on an account (404 when none)')
    .argument('<account>')
    .action(
      action(
        io,
        (target, [account]: [string]) =>
          call(target.client.GET('/v1/admin/bans/{account}', { params: { path: { account } } })),
        showBan,
      ),
    );
  bans
    .command('remove')
    .description('lift the ban on an account')
    .argument('<account>')
    .action(
      action(
        io,
        async (target, [account]: [string]) => {
          await call(target.client.DELETE('/v1/admin/bans/{account}', { params: { path: { account } } }));
          return { account, lifted: true };
        },
        ({ account }) => io.stdout(`lifted the ban on ${account}\n`),
      ),
    );
  return bans;
}

type Host = { hosts: Parameters<typeof hostRow>[0][] };
function hostRow(
  host: {
    hostId: string;
    region: string;
    maxServers: number;
    placed: number;
    draining: boolean;
    heartbeat?: { at: string; cpu: number; memory: number; servers: number };
    health: { healthy: true; load: number } | { healthy: false; reason: string };
  },
  now: Date,
) {
  const percent = (n: number | undefined) => (n === undefined ? '' : `${Math.round(n * 100)}%`);
  return [
    host.hostId,
    host.region,
    host.health.healthy ? 'healthy' : host.health.reason,
    host.health.healthy ? percent(host.health.load) : '',
    `${host.placed}/${host.maxServers}`,
    host.heartbeat?.servers,
    percent(host.heartbeat?.cpu),
    percent(host.heartbeat?.memory),
    ago(host.heartbeat?.at, now),
  ];
}
const hostHead = ['host', 'region', 'health', 'load', 'placed', 'running', 'cpu', 'memory', 'heartbeat'];

function hostsCommand(io: CliIo): Command {
  const hosts = new Command('hosts').description('the hosts game servers run on (admin)');
  hosts
    .command('list')
    .description('every host with its health, load and heartbeat age')
    .action(
      action(
        io,
        (target) => call(target.client.GET('/v1/admin/hosts')),
        ({ hosts: all }: Host) =>
          printTable(
            io,
            hostHead,
            all.map((h) => hostRow(h, io.now())),
            '(no hosts)',
          ),
      ),
    );
  hosts
    .command('get')
    .description('one host with its health and load')
    .argument('<hostId>')
    .action(
      action(
        io,
        (target, [hostId]: [string]) =>
          call(target.client.GET('/v1/admin/hosts/{hostId}', { params: { path: { hostId } } })),
        ({ host }) => printFields(io, host),
      ),
    );
  return hosts;
}

function regionsCommand(io: CliIo): Command {
  const regions = new Command('regions').description('the regions rooms are placed in (admin)');
  regions
    .command('list')
    .description('every region with its location and hosts')
    .action(
      action(
        io,
        (target) => call(target.client.GET('/v1/admin/regions')),
        ({ regions: all }) =>
          printTable(
            io,
            ['region', 'default', 'location', 'hosts'],
            all.map((r) => [
              r.name,
              r.default ? 'yes' : '',
              r.location ? `${r.location.lat}, ${r.location.lon}` : '',
              r.hosts.join(' '),
            ]),
            '(no regions)',
          ),
      ),
    );
  return regions;
}

function poolCommand(io: CliIo): Command {
  return new Command('pool').description('the warm pool: standby servers per game version and region (admin)').action(
    action(
      io,
      (target) => call(target.client.GET('/v1/admin/pool')),
      ({ pools }) =>
        printTable(
          io,
          ['game', 'region', 'target', 'ready', 'starting', 'servers'],
          pools.flatMap((pool) =>
            pool.regions.map((region) => [
              `${pool.gameId}@${pool.version}${pool.unsupported ? ' (unsupported)' : ''}`,
              region.region,
              region.target,
              region.servers.filter((s) => s.state === 'ready').length,
              region.servers.filter((s) => s.state === 'starting').length,
              region.servers.map((s) => s.roomId).join(' '),
            ]),
          ),
          '(no warm pools)',
        ),
    ),
  );
}

function queuesCommand(io: CliIo): Command {
  const queues = new Command('queues').description('the controller queues and their dead-letter queues (admin)');
  queues
    .command('list')
    .description('depth, in flight and oldest-message age of each queue and its dead-letter queue')
    .action(
      action(
        io,
        (target) => call(target.client.GET('/v1/admin/queues')),
        ({ queues: all }) =>
          printTable(
            io,
            ['queue', 'visible', 'in flight', 'delayed', 'oldest', 'dead letters', 'dl oldest'],
            all.map((q) => [
              q.id,
              q.visible,
              q.inFlight,
              q.delayed,
              duration(q.oldestAgeS),
              q.deadLetter.visible + q.deadLetter.inFlight,
              duration(q.deadLetter.oldestAgeS),
            ]),
            '(no queues)',
          ),
      ),
    );
  queues
    .command('redrive')
    .description('move dead-lettered messages back to their queue')
    .argument('<queueId>')
    .option('--max <n>', 'at most this many messages (default 100)', integerOption(1, 1000))
    .action(
      action(
        io,
        (target, [queueId]: [string], options) =>
          withProgress(io, `re-driving ${queueId}`, () =>
            call(
              target.client.POST('/v1/admin/queues/{queueId}/redrive', {
                params: { path: { queueId } },
                body: { max: options.max as number | undefined },
                signal: io.signal,
              }),
            ),
          ),
        ({ moved, remaining }) => io.stdout(`moved ${moved}; ${remaining} left in the dead-letter queue\n`),
      ),
    );
  return queues;
}

function historyCommand(io: CliIo): Command {
  return new Command('history')
    .description('spawn and kill history of game servers, newest first (admin)')
    .option('--room <roomId>', "only this room's events")
    .option('--limit <n>', 'at most this many events', integerOption(1, 200), 50)
    .action(
      action(
        io,
        (target, _args: [], options) =>
          call(
            target.client.GET('/v1/admin/history', {
              params: { query: { roomId: options.room as string | undefined, limit: options.limit as number } },
            }),
          ),
        ({ events }) =>
          printTable(
            io,
            ['at', 'room', 'game', 'region', 'event', 'reason', 'host'],
            events.map((e) => [e.at, e.roomId, `${e.gameId}@${e.version}`, e.region, e.event, e.reason, e.host]),
            '(no events)',
          ),
      ),
    );
}

export function addOperationCommands(root: Command, io: CliIo): void {
  for (const command of [
    bansCommand(io),
    hostsCommand(io),
    regionsCommand(io),
    poolCommand(io),
    queuesCommand(io),
    historyCommand(io),
  ])
    root.addCommand(command);
}
