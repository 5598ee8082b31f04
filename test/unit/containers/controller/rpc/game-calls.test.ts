import { GameCalls, type FrameSender } from '../../../../../containers/controller/rpc/game-calls';

/** Records frames instead of a socket; `accept: false` plays a game whose socket takes nothing. */
function sender(accept = true): FrameSender & { frames: Array<Record<string, unknown>> } {
  const frames: Array<Record<string, unknown>> = [];
  return {
    frames,
    send: async (message) => {
      frames.push(message as Record<string, unknown>);
      return accept;
    },
  };
}

describe('GameCalls', () => {
  it('sends numbered requests and settles each with the response of the same id', async () => {
    const socket = sender();
    const calls = new GameCalls(socket);
    const first = calls.call('status', {}, 1_000);
    const second = calls.call('say', { text: 'hi' }, 1_000);
    await new Promise((resolve) => setImmediate(resolve));
    expect(socket.frames).toEqual([
      { jsonrpc: '2.0', id: 1, method: 'status', params: {} },
      { jsonrpc: '2.0', id: 2, method: 'say', params: { text: 'hi' } },
    ]);
    expect(calls.settle({ jsonrpc: '2.0', id: 2, result: 'b' })).toBe('settled');
    expect(calls.settle({ jsonrpc: '2.0', id: 1, result: 'a' })).toBe('settled');
    await expect(first).resolves.toEqual({ kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: 'a' } });
    await expect(second).resolves.toMatchObject({ kind: 'answered' });
  });

  it.each([
    ['an id nobody asked for', 99, 'unknown'],
    ['a string id', '1', 'unknown'],
    ['a null id', null, 'unknown'],
  ])('does not settle anything with %s', async (_, id, outcome) => {
    const calls = new GameCalls(sender());
    const pending = calls.call('status', {}, 50);
    expect(calls.settle({ jsonrpc: '2.0', id, result: {} } as never)).toBe(outcome);
    await expect(pending).resolves.toEqual({ kind: 'timeout' });
  });

  it('reports unreachable at once when the socket cannot take the request', async () => {
    const calls = new GameCalls(sender(false));
    await expect(calls.call('status', {}, 10_000)).resolves.toEqual({ kind: 'unreachable' });
  });

  it('sends notifications without an id', async () => {
    const socket = sender();
    await new GameCalls(socket).notify('shutdown', { reason: 'SIGTERM', graceS: 1 });
    expect(socket.frames).toEqual([{ jsonrpc: '2.0', method: 'shutdown', params: { reason: 'SIGTERM', graceS: 1 } }]);
  });
});
