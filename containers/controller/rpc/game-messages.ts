import type { Logger } from '@aws-lambda-powertools/logger';
import { parseFrame, rpcErrorCodes, rpcFailure, type RpcResponse } from '../../../core/protocol/jsonrpc';
import type { SettleOutcome } from '../correlations';
import type { Dispatch } from './dispatcher';

export interface GameMessageDependencies {
  /** Sends one JSON-RPC object to the game. */
  readonly send: (message: unknown) => Promise<boolean>;
  /** Routes a response to the controller's own request waiting for it. */
  readonly settle: (response: RpcResponse) => SettleOutcome;
  readonly dispatch: Dispatch;
  readonly log: Logger;
}

/**
 * Handles one ZeroMQ message from the game, trusting nothing in it: every frame goes
 * through `parseFrame` (size cap, JSON, shape); requests go to the dispatcher; responses
 * settle the controller's own calls. Every fault is answered with a JSON-RPC error.
 */
export function createGameMessageHandler(deps: GameMessageDependencies): (frames: Buffer[]) => Promise<void> {
  return async (frames) => {
    const [frame] = frames;
    if (frames.length !== 1 || !frame) {
      await deps.send(
        rpcFailure(
          null,
          rpcErrorCodes.invalidRequest,
          'Invalid request: one JSON-RPC object per message, in one frame.',
        ),
      );
      return;
    }
    const parsed = parseFrame(frame);
    switch (parsed.kind) {
      case 'invalid':
        deps.log.debug('answered an invalid frame', {
          code: 'error' in parsed.reply ? parsed.reply.error.code : undefined,
        });
        await deps.send(parsed.reply);
        return;
      case 'response':
        // An id-null error is itself an answer to something unreadable: answering it could loop.
        if (deps.settle(parsed.response) !== 'settled' && parsed.response.id !== null) {
          await deps.send(
            rpcFailure(
              null,
              rpcErrorCodes.invalidRequest,
              'Invalid request: no request with this id is waiting for an answer.',
              {
                id: parsed.response.id,
              },
            ),
          );
        }
        return;
      case 'request': {
        const reply = await deps.dispatch(parsed.request);
        if (reply) await deps.send(reply);
        return;
      }
    }
  };
}
