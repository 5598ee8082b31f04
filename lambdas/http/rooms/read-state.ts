import * as z from 'zod';
import { readSavedState } from '../../../core/rooms/saved-state';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/** `GET /v1/rooms/{roomId}/state`: a live member reads the arbiter's last saved state (404: none yet). */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }) },
  async ({ params, principal }) => {
    const p = platform();
    return { status: 200, body: await readSavedState(params.roomId, principal.account, sessionDependencies(p)) };
  },
);
