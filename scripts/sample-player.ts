import { createInterface } from 'node:readline';
import { Command, InvalidArgumentError } from 'commander';
import WebSocket from 'ws';

/**
 * A terminal player for the sample game: connects with the reservation a join returned,
 * sends the registration key as the first message, prints what the room says, and sends
 * each line typed as chat.
 *
 *   npm run play -- --port 38000 --key <reservation.key>
 */
const program = new Command()
  .name('sample-player')
  .requiredOption('--key <key>', 'registration key from the reservation')
  .requiredOption('--port <port>', 'first port of the reservation', (v) => {
    const port = Number(v);
    if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new InvalidArgumentError('must be a port');
    return port;
  })
  .option('--host <host>', 'host of the reservation', '127.0.0.1')
  .parse(process.argv);
const options = program.opts<{ key: string; port: number; host: string }>();

const socket = new WebSocket(`ws://${options.host}:${options.port}`);
// The room's first message answers the key (welcome or error). Input that ends (Ctrl-D, a
// closed pipe) leaves the room, but only after that answer, so a player sees whether it got in.
let answered: () => void = () => undefined;
const answer = new Promise<void>((resolve) => (answered = resolve));
socket.on('open', () => {
  socket.send(options.key);
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
