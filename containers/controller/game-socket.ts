import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '@aws-lambda-powertools/logger';
import { Pair, type Event, type Observer } from 'zeromq';

export interface GameSocketOptions {
  /** `ipc`: a fresh 0700 directory per spawn; `tcp`: 127.0.0.1 on a port the kernel picks. */
  readonly transport: 'ipc' | 'tcp';
  /** Bind exactly this endpoint instead (GAME_LAUNCH=external: the task's shared volume). */
  readonly fixedEndpoint?: string;
  /** How long one send may wait for the game to take it (PAIR blocks while no peer is there). */
  readonly sendTimeoutMs: number;
  readonly log: Logger;
}

/**
 * Frames above this make ZeroMQ drop the connection before we read them. Between
 * `maxFrameBytes` (64 KiB) and this the frame is read and answered with `messageTooLarge`;
 * this cap only keeps a runaway game from making the sidecar buffer gigabytes.
 */
const hardFrameLimitBytes = 16 * 1024 * 1024;

/**
 * The controller's end of the game's ZeroMQ PAIR socket: bound before the game starts,
 * one JSON object per message, sends queued one at a time (a zeromq socket refuses a
 * second concurrent send with EBUSY).
 */
export class GameSocket {
  private sending: Promise<unknown> = Promise.resolve();
  private closed = false;
  private heard = false;

  private constructor(
    private readonly socket: Pair,
    readonly endpoint: string,
    private readonly privateDirectory: string | undefined,
    private readonly log: Logger,
    private readonly peers: PeerConnections,
  ) {}

  static async bind(options: GameSocketOptions): Promise<GameSocket> {
    const socket = new Pair({
      linger: 0,
      sendTimeout: options.sendTimeoutMs,
      maxMessageSize: hardFrameLimitBytes,
    });
    // Watched before the bind, so no connection of the game's is missed.
    const peers = new PeerConnections(socket);
    let directory: string | undefined;
    try {
      let address: string;
      if (options.fixedEndpoint) {
        address = options.fixedEndpoint;
      } else if (options.transport === 'tcp') {
        address = 'tcp://127.0.0.1:*';
      } else {
        directory = await mkdtemp(join(tmpdir(), 'roomkeeper-zmq-'));
        await chmod(directory, 0o700);
        address = `ipc://${join(directory, 'game.sock')}`;
      }
      await socket.bind(address);
      const endpoint = socket.lastEndpoint ?? address;
      if (options.fixedEndpoint?.startsWith('ipc://')) {
        // A fixed path lives on the task's own volume, which only the game container shares;
        // the game may run as another user, and connecting needs write access to the socket.
        await chmod(options.fixedEndpoint.slice('ipc://'.length), 0o666);
      }
      return new GameSocket(socket, endpoint, directory, options.log, peers);
    } catch (error) {
      socket.close();
      if (directory) await rm(directory, { recursive: true, force: true });
      throw error;
    }
  }

  /** Whether the game has sent anything yet (PAIR sends would block until it connects). */
  get peerHeard(): boolean {
    return this.heard;
  }

  /**
   * Resolves true once no game is connected (at once if none is), false after `timeoutMs`.
   * A game in another container (GAME_LAUNCH=external) is gone when its connection closes.
   */
  peerGone(timeoutMs: number): Promise<boolean> {
    return this.peers.gone(timeoutMs);
  }

  /**
   * Queues one JSON-RPC object for the game. Resolves `false` when it could not be handed
   * to ZeroMQ in time (no peer, peer not reading); never rejects.
   */
  send(message: unknown): Promise<boolean> {
    const attempt = this.sending.then(async () => {
      if (this.closed) return false;
      try {
        await this.socket.send(JSON.stringify(message));
        return true;
      } catch (error) {
        this.log.warn('could not send to the game', { code: (error as { code?: string }).code });
        return false;
      }
    });
    this.sending = attempt;
    return attempt;
  }

  /**
   * Calls `onMessage` with every message the game sends (each as its list of frames) until
   * the socket is closed. `onMessage` must not throw; it is called without waiting.
   */
  async receive(onMessage: (frames: Buffer[]) => void): Promise<void> {
    while (!this.closed) {
      let frames: Buffer[];
      try {
        frames = await this.socket.receive();
      } catch (error) {
        if (this.closed) return;
        this.log.error('receiving from the game failed', { error });
        await new Promise((resolve) => setTimeout(resolve, 50));
        continue;
      }
      this.heard = true;
      onMessage(frames);
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.socket.close();
    if (this.privateDirectory) await rm(this.privateDirectory, { recursive: true, force: true });
  }
}

/** The game's connections to the bound socket, from ZeroMQ's monitor events. */
class PeerConnections {
  private connected = 0;
  private readonly waiters = new Set<() => void>();

  constructor(socket: Pair) {
    void this.watch(socket.events);
  }

  /** Read until the socket closes (its observer closes with it). */
  private async watch(events: Observer): Promise<void> {
    while (!events.closed) {
      let event: Event;
      try {
        event = await events.receive();
      } catch {
        return;
      }
      if (event.type === 'accept') this.connected += 1;
      if (event.type !== 'disconnect') continue;
      this.connected = Math.max(0, this.connected - 1);
      if (this.connected > 0) continue;
      for (const wake of this.waiters) wake();
      this.waiters.clear();
    }
  }

  gone(timeoutMs: number): Promise<boolean> {
    if (this.connected === 0) return Promise.resolve(true);
    return new Promise((resolve) => {
      const done = (gone: boolean) => {
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(gone);
      };
      const wake = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.waiters.add(wake);
    });
  }
}
