import * as z from 'zod';
import { commandIdSchema } from '../../../core/commands/model';
import { readCommand } from '../../../core/commands/relay';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/** `GET /v1/rooms/{roomId}/commands/{commandId}`: a command the caller sent, as it stands. */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema, commandId: commandIdSchema }) },
  async ({ params, principal }) => {
    const p = platform();
    const view = await readCommand({ ...params, account: principal.account }, { commands: p.commands, now: p.now });
    return { status: 200, body: view };
  },
);
