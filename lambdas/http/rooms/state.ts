import * as z from 'zod';
import { parseHostEpoch } from '../../../core/rooms/host-epoch';
import { putStateRequestSchema, saveState } from '../../../core/rooms/saved-state';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/**
 * `PUT /v1/rooms/{roomId}/state` (`X-Host-Epoch`): the arbiter saves the session's state in its
 * epoch; a stale epoch is 409 STALE_EPOCH and saves nothing.
 */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: putStateRequestSchema },
  async ({ params, body, principal, headers }) => {
    const p = platform();
    // A banned account writes nothing more, in rooms it already holds either.
    await p.abuse.assertNotBanned(principal.account, p.now());
    const epoch = parseHostEpoch(headers['x-host-epoch'], true) as number;
    const saved = await saveState(
      { roomId: params.roomId, account: principal.account, epoch, state: body.state },
      sessionDependencies(p),
    );
    return { status: 200, body: saved };
  },
);
