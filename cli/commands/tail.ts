import { setTimeout as sleep } from 'node:timers/promises';
import { Command } from 'commander';
import { ApiError, type LiveServerFrame } from '../../client';
import { call, liveSocketOf, targetOf, type CliIo, type GlobalOptions, type Target } from '../context';
import { printJsonLine } from '../output';
import { liveError } from './rooms';

/**
 * `tail <roomId>`: the room's taps over the live socket and, against the local cloud, its log
 * lines (`GET /v1/dev/logs`), as they come, until Ctrl-C. Deployed there is no log route: the
 * room's logs are in CloudWatch Logs (docs/operations.md).
 */

/** How often the log tail is read again when the last read brought nothing. */
const logPollMs = 500;

function printFrame(io: CliIo, json: boolean, frame: LiveServerFrame): void {
  if (json) return printJsonLine(io, { source: 'live', frame });
  const at = io.now().toISOString();
  if (frame.type === 'tap') io.stdout(`${at} tap #${frame.changeNumber} ${frame.changes.join(', ')}\n`);
  else if (frame.type === 'ended') io.stdout(`${at} ended: ${frame.reason}\n`);
  else if (frame.type === 'subscribed') io.stdout(`${at} subscribed at #${frame.changeNumber}\n`);
}

/** Follows the room's log lines; resolves when interrupted, or at once where the route does not exist. */
async function tailLogs(target: Target, roomId: string, json: boolean, io: CliIo): Promise<void> {
  let after: number | undefined;
  for (;;) {
    let page;
    try {
      page = await call(
        target.client.GET('/v1/dev/logs', { params: { query: { roomId, after, limit: 500 } }, signal: io.signal }),
      );
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) {
        io.stderr('roomkeeper: no log tail here (local cloud only); taps only\n');
        return;
      }
      throw error;
    }
    for (const line of page.lines) {
      if (json) printJsonLine(io, { source: 'log', line });
      else {
        const { seq: _seq, at, level, message, roomId: _room, ...fields } = line;
        const more = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : '';
        io.stdout(`${at} ${String(level).toUpperCase()} ${message}${more}\n`);
      }
    }
    after = page.next;
    if (page.lines.length === 0) await sleep(logPollMs, undefined, { signal: io.signal });
  }
}

export function tailCommand(io: CliIo): Command {
  return new Command('tail')
    .description('follow a room: its taps over the live socket and (local cloud) its log lines, until Ctrl-C')
    .argument('<roomId>')
    .action(async (roomId: string, _options: unknown, command: Command) => {
      const options = command.optsWithGlobals<GlobalOptions>();
      const json = options.json === true;
      const target = await targetOf(options, io);
      let failed: (error: Error) => void = () => undefined;
      const failure = new Promise<never>((_, reject) => (failed = reject));
      // Closing the socket at the end fails it once more, after the race has settled.
      failure.catch(() => undefined);
      const live = await liveSocketOf(target, (frame) =>
        frame.type === 'error' ? failed(liveError(frame)) : printFrame(io, json, frame),
      );
      void live.closed.then(({ code }) => failed(new Error(`live socket closed (${code})`)));
      try {
        live.subscribe(roomId);
        await Promise.race([
          failure,
          tailLogs(target, roomId, json, io).then(
            () => new Promise((_, reject) => io.signal.addEventListener('abort', reject)),
          ),
        ]);
      } finally {
        live.close();
      }
    });
}
