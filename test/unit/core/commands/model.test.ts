import {
  commandAnswerWindowS,
  commandOutcome,
  commandPollPauseMs,
  commandView,
  judgeCommand,
  maxCommandResultBytes,
  newCommandRecord,
  readMessagesQuerySchema,
  sendCommandRequestSchema,
} from '../../../../core/commands/model';
import { rpcErrorCodes } from '../../../../core/protocol/jsonrpc';

const t0 = new Date('2026-01-01T00:00:00.000Z');
const at = (s: number) => new Date(t0.getTime() + s * 1000);
const record = () =>
  newCommandRecord({ roomId: 'r1', commandId: 'c1', account: 'alice', command: 'say', args: { text: 'hi' } }, t0);

describe('sendCommandRequestSchema', () => {
  it('takes a command name and optional storable args', () => {
    expect(sendCommandRequestSchema.parse({ command: 'say', args: { text: 'hi' } })).toEqual({
      command: 'say',
      args: { text: 'hi' },
    });
    expect(sendCommandRequestSchema.parse({ command: 'kick.player' })).toEqual({ command: 'kick.player' });
  });

  it.each([
    ['no command', {}],
    ['an empty command', { command: '' }],
    ['a command with spaces', { command: 'rm -rf' }],
    ['args that are not an object', { command: 'say', args: ['hi'] }],
    ['args that cannot be stored', { command: 'say', args: { n: 2 ** 60 } }],
    ['args over 4 KiB', { command: 'say', args: { text: 'x'.repeat(4096) } }],
    ['an unknown field', { command: 'say', extra: 1 }],
  ])('refuses %s', (_why, body) => {
    expect(sendCommandRequestSchema.safeParse(body).success).toBe(false);
  });
});

describe('commandOutcome', () => {
  it("keeps the game's result, null when it gave none", () => {
    expect(commandOutcome({ result: { delivered: 2 } })).toEqual({ state: 'answered', result: { delivered: 2 } });
    expect(commandOutcome({})).toEqual({ state: 'answered', result: null });
  });

  it("keeps the game's JSON-RPC error (code and message only)", () => {
    expect(commandOutcome({ error: { code: -32602, message: 'text?', data: { secret: 1 } } })).toEqual({
      state: 'failed',
      error: { code: -32602, message: 'text?' },
    });
  });

  it('replaces a result over 16 KiB of JSON with "result too large", and keeps one of exactly 16 KiB', () => {
    const exactly = { t: 'x'.repeat(maxCommandResultBytes - 8) };
    expect(Buffer.byteLength(JSON.stringify(exactly))).toBe(maxCommandResultBytes);
    expect(commandOutcome({ result: exactly }).state).toBe('answered');
    expect(commandOutcome({ result: { t: 'x'.repeat(maxCommandResultBytes) } })).toEqual({
      state: 'failed',
      error: { code: rpcErrorCodes.messageTooLarge, message: expect.stringContaining('result is too large') },
    });
  });

  it('replaces a result DynamoDB cannot store exactly with an error naming the field', () => {
    expect(commandOutcome({ result: { big: 2 ** 60 } })).toEqual({
      state: 'failed',
      error: { code: rpcErrorCodes.invalidParams, message: expect.stringContaining('result.big') },
    });
  });
});

describe('judgeCommand and commandView', () => {
  it('shows a sent command as sent until its answer window has passed, then failed with a timeout', () => {
    expect(commandView(record(), at(commandAnswerWindowS - 1))).toEqual({
      commandId: 'c1',
      command: 'say',
      state: 'sent',
    });
    expect(commandView(record(), at(commandAnswerWindowS))).toEqual({
      commandId: 'c1',
      command: 'say',
      state: 'failed',
      error: { code: rpcErrorCodes.platformTimeout, message: expect.stringContaining('did not answer') },
    });
  });

  it('never judges an answered command again', () => {
    const answered = { ...record(), state: 'answered' as const, result: { ok: true } };
    expect(judgeCommand(answered, at(10_000))).toBe(answered);
    expect(commandView(answered, at(10_000))).toEqual({
      commandId: 'c1',
      command: 'say',
      state: 'answered',
      result: { ok: true },
    });
  });
});

describe('commandPollPauseMs', () => {
  it('starts short and levels off', () => {
    const pauses = [0, 1, 2, 3, 4, 5, 50].map(commandPollPauseMs);
    expect(pauses).toEqual([25, 50, 100, 200, 300, 300, 300]);
  });
});

describe('readMessagesQuerySchema', () => {
  it('defaults to every kept message without waiting, and caps the wait at 20 s', () => {
    expect(readMessagesQuerySchema.parse({})).toEqual({ after: 0, waitS: 0 });
    expect(readMessagesQuerySchema.parse({ after: '12', waitS: '20' })).toEqual({ after: 12, waitS: 20 });
    expect(readMessagesQuerySchema.safeParse({ waitS: '21' }).success).toBe(false);
    expect(readMessagesQuerySchema.safeParse({ after: '-1' }).success).toBe(false);
    expect(readMessagesQuerySchema.safeParse({ after: 'x' }).success).toBe(false);
  });
});
