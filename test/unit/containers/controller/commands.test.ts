import type { Logger } from '@aws-lambda-powertools/logger';
import { createCommandRelay } from '../../../../containers/controller/commands';
import { GameCalls } from '../../../../containers/controller/rpc/game-calls';

function setup(whitelist: string[]) {
  const frames: Array<Record<string, unknown>> = [];
  const logged: string[] = [];
  const log = { info: (m: string) => logged.push(m), warn: (m: string) => logged.push(m) } as unknown as Logger;
  const calls = new GameCalls({
    send: async (message) => {
      frames.push(message as Record<string, unknown>);
      return true;
    },
  });
  const relay = createCommandRelay({ whitelist, calls, timeoutMs: 50, log });
  return { relay, frames, logged, calls };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createCommandRelay', () => {
  it('relays a whitelisted command to the game as a JSON-RPC request', async () => {
    const { relay, frames } = setup(['say']);
    relay({ type: 'command', commandId: 'c1', method: 'say', params: { text: 'hi' } });
    await settle();
    expect(frames).toEqual([{ jsonrpc: '2.0', id: 1, method: 'say', params: { text: 'hi' } }]);
  });

  it.each([['format-disk'], ['__proto__'], ['Say'], ['']])('drops %j, which is not whitelisted', async (method) => {
    const { relay, frames, logged } = setup(['say']);
    relay({ type: 'command', commandId: 'c1', method });
    await settle();
    expect(frames).toEqual([]);
    expect(logged).toEqual(['dropped a command outside the whitelist']);
  });

  it('relays a command delivered twice once', async () => {
    const { relay, frames, logged } = setup(['say']);
    relay({ type: 'command', commandId: 'c1', method: 'say' });
    relay({ type: 'command', commandId: 'c1', method: 'say' });
    await settle();
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ params: {} });
    expect(logged).toContain('dropped a repeated command');
  });

  it("logs the game's answer", async () => {
    const { relay, calls, logged } = setup(['say']);
    relay({ type: 'command', commandId: 'c1', method: 'say' });
    await settle();
    calls.settle({ jsonrpc: '2.0', id: 1, result: { said: true } });
    await settle();
    expect(logged).toEqual(['relayed a command']);
  });
});
