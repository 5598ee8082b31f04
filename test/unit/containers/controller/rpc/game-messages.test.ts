import type { Logger } from '@aws-lambda-powertools/logger';
import { createDispatcher, method } from '../../../../../containers/controller/rpc/dispatcher';
import { GameCalls } from '../../../../../containers/controller/rpc/game-calls';
import { createGameMessageHandler } from '../../../../../containers/controller/rpc/game-messages';
import { maxFrameBytes, rpcErrorCodes } from '../../../../../core/protocol/jsonrpc';
import { z } from 'zod';

const silent = { debug: () => undefined } as unknown as Logger;

function setup() {
  const sent: Array<Record<string, unknown>> = [];
  const send = async (message: unknown) => {
    sent.push(message as Record<string, unknown>);
    return true;
  };
  const calls = new GameCalls({ send });
  const dispatch = createDispatcher({ ping: method(z.object({}), async () => ({ result: 'pong' })) });
  const handle = createGameMessageHandler({ send, settle: (r) => calls.settle(r), dispatch, log: silent });
  const frame = (text: string | Buffer) => handle([Buffer.isBuffer(text) ? text : Buffer.from(text)]);
  return { sent, calls, handle, frame };
}

describe('createGameMessageHandler', () => {
  it.each([
    ['not JSON', '{oops', null, rpcErrorCodes.parseError],
    ['too large', Buffer.alloc(maxFrameBytes + 1, 0x20), null, rpcErrorCodes.messageTooLarge],
    ['a JSON array', '[1,2]', null, rpcErrorCodes.invalidRequest],
    ['the wrong version', '{"jsonrpc":"1.0","id":4,"method":"ping"}', 4, rpcErrorCodes.invalidRequest],
    ['__proto__ as method', '{"jsonrpc":"2.0","id":5,"method":"__proto__"}', 5, rpcErrorCodes.methodNotFound],
    ['a response to nothing', '{"jsonrpc":"2.0","id":6,"result":{}}', null, rpcErrorCodes.invalidRequest],
  ])('answers %s with an error', async (_, text, id, code) => {
    const { sent, frame } = setup();
    await frame(text);
    expect(sent).toEqual([{ jsonrpc: '2.0', id, error: expect.objectContaining({ code }) }]);
  });

  it('answers a message of several frames with -32600', async () => {
    const { sent, handle } = setup();
    await handle([Buffer.from('{}'), Buffer.from('{}')]);
    expect(sent).toEqual([
      { jsonrpc: '2.0', id: null, error: expect.objectContaining({ code: rpcErrorCodes.invalidRequest }) },
    ]);
  });

  it('never answers an id-null error (it would bounce between the two sides)', async () => {
    const { sent, frame } = setup();
    await frame('{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"x"}}');
    expect(sent).toEqual([]);
  });

  it('dispatches requests and settles answers to its own calls silently', async () => {
    const { sent, calls, frame } = setup();
    await frame('{"jsonrpc":"2.0","id":"a","method":"ping"}');
    expect(sent).toEqual([{ jsonrpc: '2.0', id: 'a', result: 'pong' }]);
    const status = calls.call('status', {}, 1_000);
    await frame('{"jsonrpc":"2.0","id":1,"result":{"status":"ok"}}');
    await expect(status).resolves.toMatchObject({ kind: 'answered' });
    expect(sent).toHaveLength(2);
  });
});
