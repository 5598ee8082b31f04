import * as z from 'zod';
import { readMessagesQuerySchema } from '../../../core/commands/model';
import { readMessages } from '../../../core/commands/relay';
import { roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/** `GET /v1/rooms/{roomId}/messages?after=&waitS=`: the owner's long poll of the game's messages. */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), query: readMessagesQuerySchema },
  async ({ params, query, principal }) => {
    const p = platform();
    // Each poll holds a request open and reads the table meanwhile: banned accounts read
    // nothing, and every account's polls are rate limited, owner or not.
    await p.abuse.assertMessagePollAllowed(principal.account, p.now());
    const read = await readMessages(
      { roomId: params.roomId, account: principal.account, after: query.after, waitS: query.waitS },
      { rooms: p.rooms, messages: p.roomMessages, now: p.now, sleep: (ms) => p.clock.sleep(ms) },
    );
    return { status: 200, body: read };
  },
);
