import { Pair } from 'zeromq';
import {
  gameMethods,
  type GameMethod,
  type GameMethodParams,
  type GameMethodResult,
} from '../../core/protocol/game-methods';
import {
  parseFrame,
  rpcErrorCodes,
  rpcFailure,
  rpcResult,
  type RpcError,
  type RpcId,
  type RpcRequest,
} from '../../core/protocol/jsonrpc';
import { log } from './log';

/** JSON-RPC errors of the controller itself, not the platform's answer: the call may be made again. */
const retryableCodes = new Set<number>([rpcErrorCodes.platformTimeout, rpcErrorCodes.internalError]);
const retryPauseMs = 250;

export type CallResult<M extends GameMethod> = { readonly result: GameMethodResult<M> } | { readonly error: RpcError };

/** Answers one controller → game request; throwing answers -32603. */
export type RequestHandler = (params: unknown) => unknown;

interface Waiting {
  readonly method: GameMethod;
  readonly resolve: (result: CallResult<GameMethod>) => void;
  readonly timer: NodeJS.Timeout;
}

/**
 * The game's end of the controller socket (docs/game-server-protocol.md): a PAIR socket
 * connected to the endpoint from argv, JSON-RPC both ways. Calls `inited`/`joined`/`left`
 * and answers the controller's requests with the handlers registered by method name.
 */
export class ControllerClient {
  private readonly socket = new Pair({ linger: 0, sendTimeout: 2_000 });
  private readonly waiting = new Map<RpcId, Waiting>();
  private readonly handlers = new Map<string, RequestHandler>();
  private sending: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;

  constructor(endpoint: string) {
    this.socket.connect(endpoint);
    void this.receive();
  }

  /** Registers the answer to a controller request (`status`, `shutdown`, commands). */
  handle(method: string, handler: RequestHandler): this {
    this.handlers.set(method, handler);
    return this;
  }

  /** Calls a game → controller method; a timeout or an unexpected result is an error, never a throw. */
  call<M extends GameMethod>(method: M, params: GameMethodParams<M>, timeoutMs = 30_000): Promise<CallResult<M>> {
    return this.callAs(this.nextId++, method, params, timeoutMs);
  }

  /**
   * Calls, and calls again after the controller's own failures (-32004 no answer in time,
   * -32603 SQS unreachable) while `wanted()` holds: those are not the platform's answer, and
   * the protocol lets the game retry. Every attempt carries the SAME id, so the platform knows
   * the retry as the same request: a registration key is single use, and only the request that
   * used it gets its answer again; the same key under a new id would be refused.
   */
  async callUntilAnswered<M extends GameMethod>(
    method: M,
    params: GameMethodParams<M>,
    wanted: () => boolean = () => !this.closed,
  ): Promise<CallResult<M>> {
    const id = this.nextId++;
    for (;;) {
      const answer = await this.callAs(id, method, params);
      if (!('error' in answer) || !retryableCodes.has(answer.error.code) || !wanted()) return answer;
      log('warn', `${method} not answered; calling it again with the same id`, { code: answer.error.code });
      // -32603 can come at once: a pause keeps the retries of an unreachable queue apart.
      await new Promise((resolve) => setTimeout(resolve, retryPauseMs));
      if (!wanted()) return answer;
    }
  }

  private callAs<M extends GameMethod>(
    id: number,
    method: M,
    params: GameMethodParams<M>,
    timeoutMs = 30_000,
  ): Promise<CallResult<M>> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve({ error: { code: rpcErrorCodes.platformTimeout, message: `No answer to ${method} in time.` } });
      }, timeoutMs);
      this.waiting.set(id, { method, resolve: resolve as Waiting['resolve'], timer });
      void this.send({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** A game → controller notification (`message`): no answer unless it failed. */
  notify(method: 'message', params: { data: Record<string, unknown> }): void {
    void this.send({ jsonrpc: '2.0', method, params });
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const [id, waiting] of this.waiting) {
      clearTimeout(waiting.timer);
      this.waiting.delete(id);
      waiting.resolve({ error: { code: rpcErrorCodes.roomClosed, message: 'The game is closing.' } });
    }
    this.socket.close();
  }

  private send(message: unknown): Promise<void> {
    // One send at a time: a zeromq socket refuses concurrent sends.
    const next = this.sending.then(async () => {
      if (this.closed) return;
      await this.socket.send(JSON.stringify(message)).catch(() => undefined);
    });
    this.sending = next;
    return next;
  }

  private async receive(): Promise<void> {
    while (!this.closed) {
      let frames: Buffer[];
      try {
        frames = await this.socket.receive();
      } catch {
        if (this.closed) return;
        continue;
      }
      const parsed = parseFrame(frames[0] ?? '');
      if (parsed.kind === 'request') void this.answer(parsed.request);
      else if (parsed.kind === 'response' && parsed.response.id !== null)
        this.settle(parsed.response.id, parsed.response);
      // Anything else from the controller is ignored: answering an answer could loop.
    }
  }

  private settle(id: RpcId, response: { result?: unknown; error?: RpcError }): void {
    const waiting = this.waiting.get(id);
    if (!waiting) return;
    clearTimeout(waiting.timer);
    this.waiting.delete(id);
    if (response.error) {
      waiting.resolve({ error: response.error });
      return;
    }
    const result = gameMethods[waiting.method].result.safeParse(response.result);
    waiting.resolve(
      result.success
        ? { result: result.data }
        : { error: { code: rpcErrorCodes.internalError, message: `Unexpected ${waiting.method} result.` } },
    );
  }

  private async answer(request: RpcRequest): Promise<void> {
    const handler = this.handlers.get(request.method);
    const id = request.id ?? null;
    let reply;
    if (!handler) {
      reply = rpcFailure(id, rpcErrorCodes.methodNotFound, `Method not found: ${request.method}.`);
    } else {
      try {
        const result = (await handler(request.params ?? {})) ?? null;
        reply = id === null ? undefined : rpcResult(id, result);
      } catch {
        reply = rpcFailure(id, rpcErrorCodes.internalError, 'Internal error.');
      }
    }
    // A notification (no id) is answered only when it failed, as the controller does.
    if (reply) await this.send(reply);
  }
}
