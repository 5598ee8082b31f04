import type { CommandDelivery } from '../commands/delivery';
import { newCommandRecord } from '../commands/model';
import type { Commands } from '../commands/store';
import type { GameServerConfiguration } from '../gameservers/configuration';
import type { Room } from '../rooms/model';
import type { AssignOutcome } from './warm-pool';

export interface AssignDependencies {
  readonly commands: Commands;
  readonly deliver: CommandDelivery;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
  readonly newId: () => string;
}

/** How long a create waits for the game's answer to `assign` before it starts a server cold. */
export const assignTimeoutMs = 5_000;

/**
 * Pauses between reads of the `assign` record: short at first, because the answer is one
 * SQS round trip and one call to an idle game away (the warm create-to-ready is that plus
 * these few milliseconds).
 */
const pausesMs = [1, 2, 2, 3, 3, 5, 5, 10, 10, 20, 20, 50];

/** The `assign` request's params: the room the standby server now is (docs/game-server-protocol.md). */
export function assignParams(room: Room): Record<string, unknown> {
  return { room_id: room.roomId, room_settings: room.settings, game_max_players: room.maxPlayers };
}

/**
 * Hands a taken standby server its room over the command relay: a command record, the sealed
 * `assign` on the sidecar's reply queue (the sidecar relays it once, whitelist or not, when it
 * was started with STANDBY=1), and the game's answer recorded from its `commandResult`.
 * Accepted only when the game answered `{"status": "OK"}`.
 */
export function assignThroughSidecar(deps: AssignDependencies) {
  return async (room: Room, _configuration: GameServerConfiguration): Promise<AssignOutcome> => {
    const record = newCommandRecord(
      {
        roomId: room.roomId,
        commandId: deps.newId(),
        account: room.owner,
        command: 'assign',
        args: assignParams(room),
      },
      deps.now(),
    );
    await deps.commands.create(record);
    const delivered = await deps.deliver(room.roomId, {
      type: 'command',
      commandId: record.commandId,
      method: 'assign',
      params: record.args,
    });
    if (delivered === 'gone') return { accepted: false, detail: 'its sidecar has ended' };
    const deadline = deps.now().getTime() + assignTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      const found = await deps.commands.find(room.roomId, record.commandId);
      if (found?.state === 'answered') {
        const status = (found.result as { status?: unknown } | null)?.status;
        return status === 'OK'
          ? { accepted: true }
          : { accepted: false, detail: `the game answered ${JSON.stringify(found.result)?.slice(0, 200)}` };
      }
      if (found?.state === 'failed') return { accepted: false, detail: found.error?.message ?? 'failed' };
      const left = deadline - deps.now().getTime();
      if (left <= 0) return { accepted: false, detail: `no answer within ${assignTimeoutMs / 1000} s` };
      await deps.sleep(Math.min(pausesMs[Math.min(attempt, pausesMs.length - 1)] ?? 50, left));
    }
  };
}
