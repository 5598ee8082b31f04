import * as z from 'zod';
import { roomIdSchema } from '../../../core/rooms/schema';
import { parseIfMatch } from '../../../core/rooms/if-match';
import { parseHostEpoch } from '../../../core/rooms/host-epoch';
import { patchRoomProperties } from '../../../core/rooms/patch';
import { roomResponse, sessionRoomView } from '../../../core/rooms/room-response';
import { patchRoomRequestSchema, refuseConstantsWrite } from '../../../core/rooms/view-schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { sessionDependencies } from './session-dependencies';

/** `PATCH /v1/rooms/{roomId}`: a member writes the room's properties; constants never change (403). */
export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: patchRoomRequestSchema },
  async ({ params, body, principal, headers }) => {
    const p = platform();
    // A banned account writes nothing more, in rooms it already holds either.
    await p.abuse.assertNotBanned(principal.account, p.now());
    const { properties } = refuseConstantsWrite(body, params.roomId);
    const ifMatch = parseIfMatch(headers['if-match']);
    const hostEpoch = parseHostEpoch(headers['x-host-epoch'], false);
    const read = await patchRoomProperties(
      {
        roomId: params.roomId,
        account: principal.account,
        ...(ifMatch === undefined ? {} : { ifMatch }),
        ...(hostEpoch === undefined ? {} : { hostEpoch }),
        properties: properties ?? {},
      },
      sessionDependencies(p),
    );
    return roomResponse(200, { room: sessionRoomView(read.room, read.doc, p.now(), principal.account) });
  },
);
