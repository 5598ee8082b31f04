import type { WebSocket, WebSocketServer } from 'ws';
import type { CallResult } from './controller-client';
import { log } from './log';

/** What the room needs from the controller: confirm and free player slots, and reach the room's owner. */
export interface SlotAuthority {
  /** Retried (same request) after the controller's own failures while `wanted()` holds. */
  joined(key: string, wanted: () => boolean): Promise<CallResult<'joined'>>;
  left(key: string): Promise<CallResult<'left'>>;
  /** A `message` to the room's owner (they read it with GET /v1/rooms/{roomId}/messages). */
  toOwner?(data: Record<string, unknown>): void;
  /** Keeps the room's state with the platform (`save_state`), for a replacement server to restore. */
  save?(state: ChatState): void;
}

/** What the room saves, and a replacement server restores: the latest chat lines. */
export interface ChatState {
  readonly history: readonly { readonly from: string; readonly text: string }[];
}

/** Chat lines kept in the saved state (and shown to a player who arrives). */
const historyLines = 20;

/** A chat line starting with this goes to the room's owner instead of the players. */
const ownerPrefix = '/owner ';

/** Messages the server sends players (JSON text frames). */
export type ServerMessage =
  | {
      readonly type: 'welcome';
      readonly account: string;
      readonly players: readonly string[];
      /** The latest chat lines, those of a replaced server included. */
      readonly history: ChatState['history'];
    }
  | { readonly type: 'joined' | 'left'; readonly account: string }
  | { readonly type: 'chat'; readonly from: string; readonly text: string }
  | { readonly type: 'announce'; readonly text: string }
  | { readonly type: 'error'; readonly code: number; readonly message: string };

/** WebSocket close codes (4000–4999 are the application's). */
export const closeCodes = { keyRejected: 4001, badKey: 4002, replaced: 4003, shuttingDown: 1001 } as const;

const maxChatChars = 500;
const maxKeyChars = 256;

interface Player {
  readonly socket: WebSocket;
  state: 'registering' | 'playing' | 'gone';
  account?: string;
  key?: string;
}

/**
 * The whole game: a chat room. A player's first message is their registration key, which
 * the room confirms with `joined` before anything else; a rejected key gets an error
 * message and a closed connection. Confirmed players chat; leaving calls `left`.
 */
export class ChatRoom {
  private readonly players = new Set<Player>();
  private history: ChatState['history'] = [];

  constructor(private readonly authority: SlotAuthority) {}

  /** A replacement server starts from what the server it replaces saved (`inited`'s `restore`). */
  restore(state: unknown): void {
    const history = (state as Partial<ChatState> | null)?.history;
    if (!Array.isArray(history)) return;
    this.history = history
      .filter(
        (line): line is ChatState['history'][number] =>
          typeof line?.from === 'string' && typeof line?.text === 'string',
      )
      .slice(-historyLines);
  }

  attach(server: WebSocketServer): void {
    server.on('connection', (socket) => this.connect(socket));
  }

  get accounts(): string[] {
    return [...this.players].flatMap((p) => (p.state === 'playing' && p.account ? [p.account] : []));
  }

  /** Tells everyone playing; returns how many got it. */
  broadcast(message: ServerMessage, except?: Player): number {
    let sent = 0;
    for (const player of this.players) {
      if (player.state === 'playing' && player !== except) {
        send(player.socket, message);
        sent += 1;
      }
    }
    return sent;
  }

  /**
   * Closes every connection (shutdown). `left` is still sent for each confirmed player, but
   * waited for only `waitMs`: the room is closing either way, and the controller's grace is short.
   */
  async closeAll(reason: string, waitMs = 300): Promise<void> {
    const players = [...this.players];
    const leaving = Promise.all(players.map((player) => this.leave(player)));
    for (const player of players) player.socket.close(closeCodes.shuttingDown, reason);
    await Promise.race([leaving, new Promise((resolve) => setTimeout(resolve, waitMs))]);
  }

  private connect(socket: WebSocket): void {
    const player: Player = { socket, state: 'registering' };
    this.players.add(player);
    socket.once('message', (data) => void this.register(player, data.toString()));
    socket.on('close', () => void this.leave(player));
    socket.on('error', () => socket.terminate());
  }

  private async register(player: Player, text: string): Promise<void> {
    const key = text.trim();
    if (key.length === 0 || key.length > maxKeyChars) {
      send(player.socket, {
        type: 'error',
        code: closeCodes.badKey,
        message: 'The first message must be your registration key.',
      });
      player.socket.close(closeCodes.badKey, 'registration key expected');
      return;
    }
    // Retried while the player is still connected: a player who left needs no answer.
    const answer = await this.authority.joined(key, () => player.state !== 'gone');
    if ('error' in answer) {
      log('info', 'player refused', { code: answer.error.code });
      send(player.socket, { type: 'error', code: answer.error.code, message: answer.error.message });
      player.socket.close(closeCodes.keyRejected, 'registration key rejected');
      this.players.delete(player);
      return;
    }
    player.key = key;
    player.account = answer.result.account;
    if (player.state === 'gone') {
      // Disconnected while the platform confirmed the slot: free it again.
      await this.authority.left(key);
      return;
    }
    this.dropEarlierConnection(player.account, player);
    player.state = 'playing';
    send(player.socket, { type: 'welcome', account: player.account, players: this.accounts, history: this.history });
    this.broadcast({ type: 'joined', account: player.account }, player);
    player.socket.on('message', (data) => this.chat(player, data.toString()));
    log('info', 'player joined', { account: player.account, players: this.accounts.length });
  }

  /**
   * One connection per account. A key is single use, so a player who reconnects has joined
   * again through the API (same slot, a new key): the older connection goes without `left`,
   * which would free the slot the newer one now holds.
   */
  private dropEarlierConnection(account: string, newer: Player): void {
    for (const other of this.players) {
      if (other === newer || other.account !== account || other.state !== 'playing') continue;
      other.state = 'gone';
      this.players.delete(other);
      other.socket.close(closeCodes.replaced, 'connected again elsewhere');
    }
  }

  private chat(player: Player, text: string): void {
    if (player.state !== 'playing' || !player.account) return;
    const trimmed = text.trim().slice(0, maxChatChars);
    if (`${trimmed} `.startsWith(ownerPrefix) && this.authority.toOwner) {
      const note = trimmed.slice(ownerPrefix.length).trim();
      if (note.length > 0) this.authority.toOwner({ type: 'chat', from: player.account, text: note });
      return;
    }
    if (trimmed.length === 0) return;
    this.broadcast({ type: 'chat', from: player.account, text: trimmed });
    this.history = [...this.history, { from: player.account, text: trimmed }].slice(-historyLines);
    this.authority.save?.({ history: this.history });
  }

  private async leave(player: Player): Promise<void> {
    if (player.state === 'gone') return;
    const wasPlaying = player.state === 'playing';
    player.state = 'gone';
    this.players.delete(player);
    if (!wasPlaying || !player.key || !player.account) return;
    this.broadcast({ type: 'left', account: player.account });
    const answer = await this.authority.left(player.key);
    log('info', 'player left', { account: player.account, confirmed: 'result' in answer });
  }
}

function send(socket: WebSocket, message: ServerMessage): void {
  if (socket.readyState === socket.OPEN) socket.send(JSON.stringify(message));
}
