/**
 * One Colyseus 0.18 server process for the peer benchmark:
 *
 *   node --import tsx test/bench/peer/colyseus-server.ts <port> [redis://host:port]
 *
 * With a Redis URL it uses Colyseus' Redis driver and presence: the documented way to run
 * several processes as one matchmaker. Without, the in-memory driver and presence of a
 * single process. Its one room type seats up to `maxClients` (from the create options) and
 * does nothing else, so the benchmark measures matchmaking and seating only.
 *
 * Over-fill is counted here, server-side, where the seats are: each room records how many
 * clients it held beyond `maxClients` at its peak, and the benchmark asks for the sum over
 * the IPC channel it spawned this process with (a room lives in exactly one process, so the
 * sum over the processes is the deployment's over-fill).
 */
import { Room, Server } from '@colyseus/core';
import { RedisDriver } from '@colyseus/redis-driver';
import { RedisPresence } from '@colyseus/redis-presence';
import { WebSocketTransport } from '@colyseus/ws-transport';

/** Clients each room held beyond its `maxClients` at its peak, by room id (kept after disposal). */
const excessByRoom = new Map<string, number>();

class SeatOnlyRoom extends Room {
  override onCreate(options: { maxClients?: number }): void {
    this.maxClients = Math.max(1, Math.min(1_000, Number(options.maxClients ?? 100)));
  }

  // Colyseus has already added the joining client to `this.clients` when it calls onJoin.
  override onJoin(): void {
    const excess = this.clients.length - this.maxClients;
    if (excess > (excessByRoom.get(this.roomId) ?? 0)) excessByRoom.set(this.roomId, excess);
  }
}

process.on('message', (message: unknown) => {
  if (message !== 'overfill') return;
  let overfill = 0;
  for (const excess of excessByRoom.values()) overfill += excess;
  process.send?.({ overfill });
});

async function main(): Promise<void> {
  const [portText, redisUrl] = process.argv.slice(2);
  const port = Number(portText);
  if (!Number.isInteger(port) || port <= 0) throw new Error('usage: colyseus-server.ts <port> [redis-url]');
  const server = new Server({
    // With several processes a seat lives in one of them: the client must reach that one.
    publicAddress: `127.0.0.1:${port}`,
    transport: new WebSocketTransport(),
    ...(redisUrl ? { presence: new RedisPresence(redisUrl), driver: new RedisDriver(redisUrl) } : {}),
    gracefullyShutdown: false,
  });
  server.define('seats', SeatOnlyRoom);
  await server.listen(port, '127.0.0.1');
  process.stdout.write(`PEER READY ${port}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exit(1);
});
