import type { Logger } from '@aws-lambda-powertools/logger';
import type { PlatformCommand } from './bridge';
import type { GameCalls } from './rpc/game-calls';

export interface CommandRelayOptions {
  /** COMMAND_WHITELIST: the only methods the platform may call on the game. */
  readonly whitelist: readonly string[];
  readonly calls: GameCalls;
  readonly timeoutMs: number;
  readonly log: Logger;
}

/**
 * Relays platform commands to the game as JSON-RPC requests. A method outside the
 * configuration's whitelist is logged and dropped; a command delivered twice (SQS at least
 * once) is relayed once. The game's answer is logged: commands are fire-and-forget.
 */
export function createCommandRelay(options: CommandRelayOptions): (command: PlatformCommand) => void {
  const allowed = new Set(options.whitelist);
  const seen = new Set<string>();
  return (command) => {
    const context = { commandId: command.commandId.slice(0, 128), method: command.method.slice(0, 64) };
    if (!allowed.has(command.method)) {
      options.log.warn('dropped a command outside the whitelist', context);
      return;
    }
    if (seen.has(command.commandId)) {
      options.log.info('dropped a repeated command', context);
      return;
    }
    seen.add(command.commandId);
    if (seen.size > 1024) seen.delete(seen.values().next().value as string);
    void options.calls.call(command.method, command.params ?? {}, options.timeoutMs).then((outcome) => {
      const answer = outcome.kind !== 'answered' ? outcome.kind : 'error' in outcome.response ? 'error' : 'result';
      const code = outcome.kind === 'answered' && 'error' in outcome.response ? outcome.response.error.code : undefined;
      options.log.info('relayed a command', { ...context, answer, code });
    });
  };
}
