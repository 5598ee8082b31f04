import type { RpcId, RpcResponse } from '../../../core/protocol/jsonrpc';
import { Correlations, type SettleOutcome } from '../correlations';

export type CallOutcome =
  | { readonly kind: 'answered'; readonly response: RpcResponse }
  | { readonly kind: 'timeout' }
  /** The request could not be handed to the game's socket in time. */
  | { readonly kind: 'unreachable' }
  | { readonly kind: 'cancelled' };

export interface FrameSender {
  send(message: unknown): Promise<boolean>;
}

/**
 * Controller → game JSON-RPC requests (`status`, relayed commands) and the game's answers
 * to them. Ids are the controller's own sequence; a response with any other id is not ours.
 */
export class GameCalls {
  private nextId = 1;
  private readonly waits = new Correlations<RpcId, RpcResponse>(256);

  constructor(private readonly socket: FrameSender) {}

  /** Sends a request and waits for its response; `timeoutMs` counts from before the send. */
  async call(method: string, params: Record<string, unknown>, timeoutMs: number): Promise<CallOutcome> {
    const id = this.nextId++;
    const answer = this.waits.wait(id, timeoutMs);
    if (!(await this.socket.send({ jsonrpc: '2.0', id, method, params }))) {
      this.waits.cancel(id);
      await answer;
      return { kind: 'unreachable' };
    }
    const settlement = await answer;
    return settlement.kind === 'answered' ? { kind: 'answered', response: settlement.value } : settlement;
  }

  /** A request without id: the game answers nothing. */
  notify(method: string, params: Record<string, unknown>): Promise<boolean> {
    return this.socket.send({ jsonrpc: '2.0', method, params });
  }

  /** Routes a response from the game to the call waiting for it. */
  settle(response: RpcResponse): SettleOutcome {
    return response.id === null ? 'unknown' : this.waits.settle(response.id, response);
  }

  cancelAll(): void {
    this.waits.cancelAll();
  }
}
