import * as z from 'zod';

/**
 * JSON-RPC 2.0 framing for the game ↔ controller socket. Every ZeroMQ message is one
 * complete object; anything else is answered with an error, never a crash.
 */
export const rpcErrorCodes = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  /** Application codes (documented in docs/game-server-protocol.md). */
  keyRejected: -32001,
  roomClosed: -32002,
  notAllowed: -32003,
  platformTimeout: -32004,
  scopeRefused: -32005,
  messageTooLarge: -32006,
  /** Controller to platform only: a standby server's `assign` after the one it relayed. */
  alreadyAssigned: -32007,
} as const;

export type RpcErrorCode = (typeof rpcErrorCodes)[keyof typeof rpcErrorCodes];

/** Frames above this are refused unread. */
export const maxFrameBytes = 64 * 1024;

const rpcIdSchema = z.union([z.string().max(128), z.number().int()]);
export type RpcId = z.infer<typeof rpcIdSchema>;

export const rpcErrorSchema = z.object({
  code: z.number().int(),
  message: z.string(),
  data: z.unknown().optional(),
});
export type RpcError = z.infer<typeof rpcErrorSchema>;

const rpcRequestSchema = z.object({
  jsonrpc: z.literal('2.0'),
  id: rpcIdSchema.optional(),
  method: z.string().min(1).max(64),
  params: z.union([z.record(z.string(), z.unknown()), z.array(z.unknown())]).optional(),
});
export type RpcRequest = z.infer<typeof rpcRequestSchema>;

export const rpcResponseSchema = z.union([
  z.object({ jsonrpc: z.literal('2.0'), id: rpcIdSchema.nullable(), result: z.unknown() }),
  z.object({ jsonrpc: z.literal('2.0'), id: rpcIdSchema.nullable(), error: rpcErrorSchema }),
]);
export type RpcResponse = z.infer<typeof rpcResponseSchema>;

export type ParsedFrame =
  | { readonly kind: 'request'; readonly request: RpcRequest }
  | { readonly kind: 'response'; readonly response: RpcResponse }
  /** Not a usable message: answer `reply` (id null when the id could not be read). */
  | { readonly kind: 'invalid'; readonly reply: RpcResponse };

function failure(id: RpcId | null, code: RpcErrorCode, message: string): RpcResponse {
  return { jsonrpc: '2.0', id, error: { code, message } };
}

/** Classifies one ZeroMQ frame without trusting anything in it. */
export function parseFrame(frame: Buffer | string, maxBytes = maxFrameBytes): ParsedFrame {
  const size = typeof frame === 'string' ? Buffer.byteLength(frame) : frame.length;
  if (size > maxBytes) {
    return {
      kind: 'invalid',
      reply: failure(null, rpcErrorCodes.messageTooLarge, `Message of ${size} bytes exceeds ${maxBytes}.`),
    };
  }
  let value: unknown;
  try {
    value = JSON.parse(typeof frame === 'string' ? frame : frame.toString('utf8'));
  } catch {
    return { kind: 'invalid', reply: failure(null, rpcErrorCodes.parseError, 'Parse error: not valid JSON.') };
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    if ('method' in record) {
      const request = rpcRequestSchema.safeParse(value);
      if (request.success) return { kind: 'request', request: request.data };
    } else if ('result' in record || 'error' in record) {
      const response = rpcResponseSchema.safeParse(value);
      if (response.success) return { kind: 'response', response: response.data };
    }
    const id = rpcIdSchema.safeParse(record.id);
    return {
      kind: 'invalid',
      reply: failure(
        id.success ? id.data : null,
        rpcErrorCodes.invalidRequest,
        'Invalid request: not a JSON-RPC 2.0 object.',
      ),
    };
  }
  return {
    kind: 'invalid',
    reply: failure(null, rpcErrorCodes.invalidRequest, 'Invalid request: not a JSON-RPC 2.0 object.'),
  };
}

export function rpcResult(id: RpcId, result: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, result };
}

export function rpcFailure(id: RpcId | null, code: RpcErrorCode, message: string, data?: unknown): RpcResponse {
  return { jsonrpc: '2.0', id, error: data === undefined ? { code, message } : { code, message, data } };
}
