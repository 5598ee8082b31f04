import * as z from 'zod';
import { sendCommandRequestSchema } from '../../../core/commands/model';
import { sendCommand } from '../../../core/commands/relay';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/**
 * `POST /v1/rooms/{roomId}/commands`: the owner's command to the room's game server. 200 with
 * the game's answer when it came within ~10 s, else 202 `sent` and where to read it later.
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: sendCommandRequestSchema },
  async ({ params, body, principal }) => {
    const p = platform();
    // Banned accounts send nothing; every account's commands are rate limited.
    await p.abuse.assertCommandAllowed(principal.account, p.now());
    const view = await sendCommand(
      { roomId: params.roomId, account: principal.account, command: body.command, args: body.args },
      {
        rooms: p.rooms,
        configurations: p.gameConfigurations,
        commands: p.commands,
        deliver: p.deliverCommand,
        now: p.now,
        sleep: (ms) => p.clock.sleep(ms),
        newId: p.newId,
      },
    );
    if (view.state !== 'sent') return { status: 200, body: view };
    return {
      status: 202,
      body: { commandId: view.commandId, state: view.state },
      headers: { location: `/v1/rooms/${params.roomId}/commands/${view.commandId}` },
    };
  },
);
