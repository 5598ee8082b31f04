import type { Logger } from '@aws-lambda-powertools/logger';
import { maxCommandResultBytes, resultTooLarge } from '../../core/commands/model';
import { assignMethod } from '../../core/protocol/game-methods';
import { rpcErrorCodes } from '../../core/protocol/jsonrpc';
import type { PlatformCommand } from './bridge';
import type { CallOutcome, GameCalls } from './rpc/game-calls';

/** What the platform is told about one command: the game's result, or an error. */
export type CommandAnswer = { readonly result: unknown } | { readonly error: { code: number; message: string } };

export interface CommandRelayOptions {
  /** COMMAND_WHITELIST: the only methods the platform may call on the game. */
  readonly whitelist: readonly string[];
  /**
   * STANDBY=1: a warm-pool server. The platform's one `assign` (the room it is handed) is
   * relayed too; any later one is answered -32007 (`alreadyAssigned`) on the assign queue.
   */
  readonly standby?: boolean;
  readonly calls: Pick<GameCalls, 'call'>;
  readonly timeoutMs: number;
  /** Sends the answer to `assign` straight to the create waiting for it; resolves whether SQS took it. */
  readonly answerAssign?: CommandRelayOptions['answer'];
  /** Sends the answer back to the platform (`commandResult`); resolves whether SQS took it. */
  readonly answer: (commandId: string, answer: CommandAnswer) => Promise<boolean>;
  readonly log: Logger;
}

/**
 * Relays platform commands to the game as JSON-RPC requests and sends the game's answer back
 * as a `commandResult`. A method outside the configuration's whitelist is not relayed and is
 * answered with -32003; a command delivered twice (SQS at least once) is relayed and answered
 * once. Resolves once the answer is sent (tests await it; the bridge does not).
 */
export function createCommandRelay(options: CommandRelayOptions): (command: PlatformCommand) => Promise<void> {
  const allowed = new Set(options.whitelist);
  const seen = new Set<string>();
  let assignable = options.standby === true;
  return async (command) => {
    const context = { commandId: command.commandId.slice(0, 128), method: command.method.slice(0, 64) };
    if (seen.has(command.commandId)) {
      options.log.info('dropped a repeated command', context);
      return;
    }
    seen.add(command.commandId);
    if (seen.size > 1024) seen.delete(seen.values().next().value as string);
    const isAssign = command.method === assignMethod && assignable;
    if (isAssign) assignable = false;
    else if (command.method === assignMethod && options.standby === true) {
      // The platform sends `assign` only after a create won the server's room, so a second one
      // is a bug or a forgery: the game keeps the room it was handed first.
      options.log.warn('refused an assign after the one relayed', context);
      await send(
        command.commandId,
        { error: { code: rpcErrorCodes.alreadyAssigned, message: 'This server was handed its room already.' } },
        true,
      );
      return;
    }
    if (!isAssign && !allowed.has(command.method)) {
      options.log.warn('refused a command outside the whitelist', context);
      await send(command.commandId, {
        error: { code: rpcErrorCodes.notAllowed, message: `Command '${context.method}' is not in the whitelist.` },
      });
      return;
    }
    const relayed = performance.now();
    const outcome = await options.calls.call(command.method, command.params ?? {}, options.timeoutMs);
    const answer = commandAnswer(outcome, options.timeoutMs);
    // Logged once SQS has the answer, not beside its send: the SDK writes the request only
    // after several turns of the event loop, and a log line formatted in between delays the
    // answer the owner (or a create, for `assign`) waits for.
    await send(command.commandId, answer, isAssign);
    options.log.info('relayed a command', {
      ...context,
      answer: outcome.kind !== 'answered' ? outcome.kind : 'error' in answer ? 'error' : 'result',
      code: 'error' in answer ? answer.error.code : undefined,
      // The sidecar's and the game's share of what the caller waited: the rest is SQS and the platform.
      ms: Math.round((performance.now() - relayed) * 10) / 10,
    });
  };

  async function send(commandId: string, answer: CommandAnswer, isAssign = false): Promise<void> {
    const answered = isAssign && options.answerAssign ? options.answerAssign : options.answer;
    if (!(await answered(commandId, answer))) {
      options.log.error('could not send a command answer to the platform', { commandId: commandId.slice(0, 128) });
    }
  }
}

/** The game's response as the platform records it: results over 16 KiB become an error here already. */
export function commandAnswer(outcome: CallOutcome, timeoutMs: number): CommandAnswer {
  switch (outcome.kind) {
    case 'answered': {
      const response = outcome.response;
      if ('error' in response) {
        return { error: { code: response.error.code, message: String(response.error.message).slice(0, 1024) } };
      }
      const bytes = Buffer.byteLength(JSON.stringify(response.result ?? null));
      return bytes > maxCommandResultBytes ? { error: resultTooLarge(bytes) } : { result: response.result ?? null };
    }
    case 'timeout':
      return {
        error: {
          code: rpcErrorCodes.platformTimeout,
          message: `The game server did not answer within ${timeoutMs / 1000} s.`,
        },
      };
    case 'unreachable':
      return { error: { code: rpcErrorCodes.internalError, message: 'The game server could not be reached.' } };
    case 'cancelled':
      return { error: { code: rpcErrorCodes.roomClosed, message: 'The game server is stopping.' } };
  }
}
