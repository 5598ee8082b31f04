import type { Logger } from '@aws-lambda-powertools/logger';
import { commandAnswer, createCommandRelay, type CommandAnswer } from '../../../../containers/controller/commands';
import { GameCalls } from '../../../../containers/controller/rpc/game-calls';
import { maxCommandResultBytes } from '../../../../core/commands/model';
import { rpcErrorCodes } from '../../../../core/protocol/jsonrpc';

function setup(whitelist: string[], options: { answerSent?: boolean; standby?: boolean } = {}) {
  const frames: Array<Record<string, unknown>> = [];
  const answers: Array<[string, CommandAnswer]> = [];
  const assignAnswers: Array<[string, CommandAnswer]> = [];
  const logged: string[] = [];
  const log = {
    info: (m: string) => logged.push(m),
    warn: (m: string) => logged.push(m),
    error: (m: string) => logged.push(m),
  } as unknown as Logger;
  const calls = new GameCalls({
    send: async (message) => {
      frames.push(message as Record<string, unknown>);
      return true;
    },
  });
  const relay = createCommandRelay({
    whitelist,
    calls,
    timeoutMs: 50,
    log,
    answer: async (commandId, answer) => {
      answers.push([commandId, answer]);
      return options.answerSent ?? true;
    },
    ...(options.standby
      ? {
          standby: true,
          answerAssign: async (commandId: string, answer: CommandAnswer) => {
            assignAnswers.push([commandId, answer]);
            return true;
          },
        }
      : {}),
  });
  return { relay, frames, answers, assignAnswers, logged, calls };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('createCommandRelay', () => {
  it("relays a whitelisted command to the game as a JSON-RPC request and sends the game's result back", async () => {
    const { relay, frames, calls, answers } = setup(['say']);
    const relayed = relay({ type: 'command', commandId: 'c1', method: 'say', params: { text: 'hi' } });
    await settle();
    expect(frames).toEqual([{ jsonrpc: '2.0', id: 1, method: 'say', params: { text: 'hi' } }]);
    calls.settle({ jsonrpc: '2.0', id: 1, result: { delivered: 2 } });
    await relayed;
    expect(answers).toEqual([['c1', { result: { delivered: 2 } }]]);
  });

  it("sends the game's JSON-RPC error back as the command's error", async () => {
    const { relay, calls, answers } = setup(['say']);
    const relayed = relay({ type: 'command', commandId: 'c1', method: 'say' });
    await settle();
    calls.settle({ jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'text is required', data: { x: 1 } } });
    await relayed;
    expect(answers).toEqual([['c1', { error: { code: -32602, message: 'text is required' } }]]);
  });

  it.each([['format-disk'], ['__proto__'], ['Say'], ['']])(
    'does not relay %j, which is not whitelisted, and answers -32003',
    async (method) => {
      const { relay, frames, logged, answers } = setup(['say']);
      await relay({ type: 'command', commandId: 'c1', method });
      expect(frames).toEqual([]);
      expect(logged).toEqual(['refused a command outside the whitelist']);
      expect(answers).toEqual([['c1', { error: { code: rpcErrorCodes.notAllowed, message: expect.any(String) } }]]);
    },
  );

  it("relays a standby server's one assign and answers on the assign queue; any other is refused there at once", async () => {
    const { relay, frames, calls, answers, assignAnswers } = setup(['say'], { standby: true });
    const relayed = relay({ type: 'command', commandId: 'a1', method: 'assign', params: { room_id: 'r1' } });
    await settle();
    expect(frames).toEqual([{ jsonrpc: '2.0', id: 1, method: 'assign', params: { room_id: 'r1' } }]);
    // Another create's assign while the game is still answering the first: refused, never relayed.
    await relay({ type: 'command', commandId: 'a2', method: 'assign', params: { room_id: 'r1' } });
    expect(assignAnswers).toEqual([
      ['a2', { error: expect.objectContaining({ code: rpcErrorCodes.alreadyAssigned }) }],
    ]);
    calls.settle({ jsonrpc: '2.0', id: 1, result: { status: 'OK' } });
    await relayed;
    expect(assignAnswers[1]).toEqual(['a1', { result: { status: 'OK' } }]);

    await relay({ type: 'command', commandId: 'a3', method: 'assign', params: { room_id: 'r3' } });
    expect(frames).toHaveLength(1);
    expect(assignAnswers[2]).toEqual([
      'a3',
      { error: expect.objectContaining({ code: rpcErrorCodes.alreadyAssigned }) },
    ]);
    expect(answers).toEqual([]);
  });

  it('refuses assign to a server that is not standby, like any method outside the whitelist', async () => {
    const { relay, frames, answers, assignAnswers } = setup(['say']);
    await relay({ type: 'command', commandId: 'a1', method: 'assign', params: { room_id: 'r1' } });
    expect(frames).toEqual([]);
    expect(answers).toEqual([['a1', { error: expect.objectContaining({ code: rpcErrorCodes.notAllowed }) }]]);
    expect(assignAnswers).toEqual([]);
  });

  it('relays and answers a command delivered twice once', async () => {
    const { relay, frames, logged, calls, answers } = setup(['say']);
    const first = relay({ type: 'command', commandId: 'c1', method: 'say' });
    await relay({ type: 'command', commandId: 'c1', method: 'say' });
    await settle();
    calls.settle({ jsonrpc: '2.0', id: 1, result: null });
    await first;
    expect(frames).toHaveLength(1);
    expect(frames[0]).toMatchObject({ params: {} });
    expect(logged).toContain('dropped a repeated command');
    expect(answers).toHaveLength(1);
  });

  it('answers a timeout when the game does not answer in time', async () => {
    const { relay, answers } = setup(['say']);
    await relay({ type: 'command', commandId: 'c1', method: 'say' });
    expect(answers).toEqual([['c1', { error: { code: rpcErrorCodes.platformTimeout, message: expect.any(String) } }]]);
  });

  it('logs an answer SQS did not take', async () => {
    const { relay, logged } = setup(['nope'], { answerSent: false });
    await relay({ type: 'command', commandId: 'c1', method: 'say' });
    expect(logged).toContain('could not send a command answer to the platform');
  });

  it('logs a relayed command only once SQS has taken its answer, so no log line delays the send', async () => {
    const logged: string[] = [];
    const log = { info: (m: string) => logged.push(m) } as unknown as Logger;
    const calls = new GameCalls({ send: async () => true });
    let taken: (sent: boolean) => void = () => undefined;
    const relay = createCommandRelay({
      whitelist: ['say'],
      calls,
      timeoutMs: 50,
      log,
      answer: () => new Promise<boolean>((resolve) => (taken = resolve)),
    });
    const relayed = relay({ type: 'command', commandId: 'c1', method: 'say' });
    await settle();
    calls.settle({ jsonrpc: '2.0', id: 1, result: {} });
    await settle();
    expect(logged).toEqual([]);
    taken(true);
    await relayed;
    expect(logged).toEqual(['relayed a command']);
  });
});

describe('commandAnswer', () => {
  it('keeps a result of at most 16 KiB of JSON and replaces a larger one with an error', () => {
    const fits = { text: 'x'.repeat(maxCommandResultBytes - 11) };
    expect(Buffer.byteLength(JSON.stringify(fits))).toBe(maxCommandResultBytes);
    expect(commandAnswer({ kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: fits } }, 1000)).toEqual({
      result: fits,
    });
    const big = { text: 'x'.repeat(maxCommandResultBytes - 10) };
    expect(commandAnswer({ kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: big } }, 1000)).toEqual({
      error: { code: rpcErrorCodes.messageTooLarge, message: expect.stringContaining('too large') },
    });
  });

  it('turns a missing result into null and the controller-side outcomes into errors', () => {
    expect(commandAnswer({ kind: 'answered', response: { jsonrpc: '2.0', id: 1, result: undefined } }, 1000)).toEqual({
      result: null,
    });
    expect(commandAnswer({ kind: 'unreachable' }, 1000)).toMatchObject({
      error: { code: rpcErrorCodes.internalError },
    });
    expect(commandAnswer({ kind: 'cancelled' }, 1000)).toMatchObject({ error: { code: rpcErrorCodes.roomClosed } });
    expect(commandAnswer({ kind: 'timeout' }, 2000)).toEqual({
      error: { code: rpcErrorCodes.platformTimeout, message: 'The game server did not answer within 2 s.' },
    });
  });
});
