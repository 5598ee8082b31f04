/**
 * The game of the raw "round trip to a game" (test/bench/raw-parts.ts `startGameRoundTrips`),
 * a separate process with nothing of Roomkeeper in it:
 *
 *   node --import tsx test/bench/game-round-trip/game.ts <ipc://…>
 *
 * It connects a ZeroMQ PAIR socket to the relay's endpoint (a game connects to its sidecar's
 * bound socket the same way), says hello once so the relay knows it is there, then answers
 * every JSON-RPC request at once. It exits when its stdin closes: with the bench.
 */
import { Pair } from 'zeromq';

const [endpoint] = process.argv.slice(2);
if (!endpoint) throw new Error('usage: game.ts <ipc://endpoint>');

process.stdin.on('close', () => process.exit(0));
process.stdin.resume();

async function serve(address: string): Promise<void> {
  const socket = new Pair({ linger: 0 });
  socket.connect(address);
  await socket.send(JSON.stringify({ jsonrpc: '2.0', method: 'hello' }));
  for await (const [frame] of socket) {
    const request = JSON.parse(String(frame)) as { id?: unknown };
    await socket.send(JSON.stringify({ jsonrpc: '2.0', id: request.id, result: { status: 'OK' } }));
  }
}

serve(endpoint).catch((error: unknown) => {
  process.stderr.write(`bench game: ${String(error)}\n`);
  process.exit(1);
});
