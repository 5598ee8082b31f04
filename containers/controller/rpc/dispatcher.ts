import type { z } from 'zod';
import {
  rpcErrorCodes,
  rpcResult,
  type RpcError,
  type RpcId,
  type RpcRequest,
  type RpcResponse,
} from '../../../core/protocol/jsonrpc';
import { checkRpcParams } from '../../../core/protocol/invalid-params';

/** What a method handler decides: a result for the game, or a JSON-RPC error. */
export type Outcome = { readonly result: unknown } | { readonly error: RpcError };

/** `id`: the request's JSON-RPC id, absent for a notification. */
export interface MethodHandler<S extends z.ZodType = z.ZodType> {
  readonly params: S;
  handle(params: z.output<S>, id?: RpcId): Promise<Outcome>;
}

/** Ties a handler's `handle` to its params schema (so the table can hold different ones). */
export function method<S extends z.ZodType>(
  params: S,
  handle: (params: z.output<S>, id?: RpcId) => Promise<Outcome>,
): MethodHandler {
  return { params, handle: handle as MethodHandler['handle'] };
}

export const failure = (code: number, message: string, data?: unknown): Outcome => ({
  error: data === undefined ? { code, message } : { code, message, data },
});

export type Dispatch = (request: RpcRequest) => Promise<RpcResponse | undefined>;

/**
 * JSON-RPC dispatch over an allowlist: a table of small named handlers. Unknown method
 * → -32601 (a Map, so `__proto__` or `constructor` are unknown like any other name), params
 * that cannot be stored exactly or fail the handler's schema → -32602 naming the member, a
 * handler that throws → -32603.
 *
 * A notification (no id) gets no answer when it succeeds; its errors are answered with id
 * null, so a game that forgot the id still learns what went wrong.
 */
export function createDispatcher(
  table: Readonly<Record<string, MethodHandler>>,
  onHandlerError: (method: string, error: unknown) => void = () => undefined,
): Dispatch {
  const methods = new Map(Object.entries(table));
  return async (request) => {
    const outcome = await decide(methods, request, onHandlerError);
    const id = request.id ?? null;
    if ('error' in outcome) return { jsonrpc: '2.0', id, error: outcome.error };
    return id === null ? undefined : rpcResult(id, outcome.result ?? null);
  };
}

async function decide(
  methods: ReadonlyMap<string, MethodHandler>,
  request: RpcRequest,
  onHandlerError: (method: string, error: unknown) => void,
): Promise<Outcome> {
  const handler = methods.get(request.method);
  if (!handler) return failure(rpcErrorCodes.methodNotFound, `Method not found: ${request.method}.`);
  const params = checkRpcParams(handler.params, request.params ?? {});
  if ('message' in params) return failure(rpcErrorCodes.invalidParams, params.message);
  try {
    return await handler.handle(params.data, request.id);
  } catch (error) {
    onHandlerError(request.method, error);
    return failure(rpcErrorCodes.internalError, 'Internal error.');
  }
}
