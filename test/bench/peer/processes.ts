import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { connect } from 'node:net';
import { join } from 'node:path';
import { z } from 'zod';
import { freePort } from '../../../local/free-port';

/**
 * The peer's processes: Debian's `redis-server` and Colyseus server processes, each on a
 * free loopback port, each killed when the peer benchmark ends (and with this process).
 */
export interface PeerDeployment {
  readonly mode: 'redis' | 'memory';
  /** The HTTP/WebSocket endpoints of its server processes; clients spread over them. */
  readonly urls: readonly string[];
  /** Clients seated beyond `maxClients`, summed over every room the servers have held, as they count it. */
  serverOverfill(): Promise<number>;
  stop(): Promise<void>;
}

const serverEntry = join(__dirname, 'colyseus-server.ts');

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function waitForPort(port: number, child: ChildProcess, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${what} exited with code ${child.exitCode} before serving`);
    if (await portOpen(port)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not listen on port ${port} within 20 s`);
}

function stopAll(children: readonly ChildProcess[]): Promise<void> {
  return Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve) => {
          if (child.exitCode !== null || child.signalCode !== null) return resolve();
          child.once('exit', () => resolve());
          child.kill('SIGKILL');
        }),
    ),
  ).then(() => undefined);
}

const overfillAnswer = z.object({ overfill: z.number().int().nonnegative() });

/** Asks one Colyseus server process (over its IPC channel) for its server-side over-fill count. */
function askOverfill(server: ChildProcess): Promise<number> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      server.removeListener('message', onMessage);
      reject(new Error('A Colyseus server did not report its over-fill within 5 s'));
    }, 5_000);
    const onMessage = (message: unknown) => {
      const parsed = overfillAnswer.safeParse(message);
      if (!parsed.success) return;
      clearTimeout(timer);
      server.removeListener('message', onMessage);
      resolve(parsed.data.overfill);
    };
    server.on('message', onMessage);
    server.send('overfill');
  });
}

export function redisServerAvailable(): boolean {
  return spawnSync('redis-server', ['--version'], { stdio: 'ignore' }).status === 0;
}

/**
 * `processes` Colyseus servers; with `redis`, sharing a fresh in-memory Redis (no
 * snapshots, no append-only file) through Colyseus' Redis driver and presence.
 */
export async function startPeer(mode: 'redis' | 'memory', processes: number): Promise<PeerDeployment> {
  const children: ChildProcess[] = [];
  const kill = () => void stopAll(children);
  process.once('exit', kill);
  try {
    let redisUrl: string | undefined;
    if (mode === 'redis') {
      if (!redisServerAvailable())
        throw new Error(
          'redis-server is not installed: the peer runs Colyseus on Redis. Install it with `sudo apt-get install redis-server`.',
        );
      const port = await freePort();
      const redis = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: 'ignore' },
      );
      children.push(redis);
      await waitForPort(port, redis, 'redis-server');
      redisUrl = `redis://127.0.0.1:${port}`;
    }
    const urls: string[] = [];
    const servers: ChildProcess[] = [];
    for (let i = 0; i < processes; i++) {
      const port = await freePort();
      const server = spawn(
        process.execPath,
        ['--import', 'tsx', serverEntry, String(port), ...(redisUrl ? [redisUrl] : [])],
        // The IPC channel carries only the over-fill question and its answer.
        { stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
      );
      children.push(server);
      servers.push(server);
      await waitForPort(port, server, `Colyseus server ${i + 1}`);
      urls.push(`http://127.0.0.1:${port}`);
    }
    return {
      mode,
      urls,
      serverOverfill: async () => (await Promise.all(servers.map(askOverfill))).reduce((sum, n) => sum + n, 0),
      stop: async () => {
        process.removeListener('exit', kill);
        await stopAll(children);
      },
    };
  } catch (error) {
    await stopAll(children);
    throw error;
  }
}
