import { z } from 'zod';
import { createDispatcher, failure, method } from '../../../../../containers/controller/rpc/dispatcher';
import { rpcErrorCodes, type RpcRequest } from '../../../../../core/protocol/jsonrpc';

const echo = method(z.object({ text: z.string() }), async ({ text }) => ({ result: { echoed: text } }));
const refuse = method(z.object({}), async () => failure(rpcErrorCodes.keyRejected, 'no', { why: 'test' }));
const broken = method(z.object({}), async () => {
  throw new Error('boom');
});
const nothing = method(z.object({}), async () => ({ result: undefined }));

const request = (partial: Partial<RpcRequest>): RpcRequest => ({ jsonrpc: '2.0', id: 7, method: 'echo', ...partial });

describe('createDispatcher', () => {
  const errors: string[] = [];
  const dispatch = createDispatcher({ echo, refuse, broken, nothing }, (name) => errors.push(name));

  it('calls the named handler with parsed params and answers its result', async () => {
    expect(await dispatch(request({ params: { text: 'hi', extra: 1 } }))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      result: { echoed: 'hi' },
    });
  });

  it.each([
    ['unknown name', 'nope'],
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['toString', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
  ])('answers -32601 for a method outside the table (%s)', async (_, name) => {
    expect(await dispatch(request({ method: name }))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: rpcErrorCodes.methodNotFound, message: `Method not found: ${name}.` },
    });
  });

  it.each([
    ['missing field', {}],
    ['wrong type', { text: 5 }],
    ['array params', ['hi']],
  ])('answers -32602 naming the problem for bad params (%s)', async (_, params) => {
    const reply = await dispatch(request({ params: params as RpcRequest['params'] }));
    expect(reply).toMatchObject({
      id: 7,
      error: { code: rpcErrorCodes.invalidParams, message: expect.stringMatching(/^Invalid params: /) },
    });
  });

  it('passes a handler error through with its data', async () => {
    expect(await dispatch(request({ method: 'refuse' }))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: rpcErrorCodes.keyRejected, message: 'no', data: { why: 'test' } },
    });
  });

  it('answers -32603 when a handler throws, and reports it', async () => {
    expect(await dispatch(request({ method: 'broken' }))).toMatchObject({
      error: { code: rpcErrorCodes.internalError, message: 'Internal error.' },
    });
    expect(errors).toContain('broken');
  });

  it('answers null rather than dropping the result field', async () => {
    expect(await dispatch(request({ method: 'nothing' }))).toEqual({ jsonrpc: '2.0', id: 7, result: null });
  });

  it('answers a successful notification with nothing and a failed one with id null', async () => {
    expect(await dispatch(request({ id: undefined, params: { text: 'x' } }))).toBeUndefined();
    expect(await dispatch(request({ id: undefined, method: 'nope' }))).toMatchObject({
      id: null,
      error: { code: rpcErrorCodes.methodNotFound },
    });
  });
});
