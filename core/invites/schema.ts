import * as z from 'zod';
import { accountSchema } from '../abuse/bans';

/** Accounts one invite request may name: each gets a slot, so a request cannot fill a room in one go. */
const maxInvitesPerRequest = 10;

/** `POST /v1/rooms/{roomId}/invites`. */
export const inviteRequestSchema = z
  .strictObject({
    accounts: z
      .array(accountSchema)
      .min(1)
      .max(maxInvitesPerRequest)
      .describe(`The accounts invited (1–${maxInvitesPerRequest}); those holding a slot already are left as they are.`),
  })
  .meta({ id: 'InviteRequest' });

/** `GET /v1/me/invites`. */
export const myInvitesSchema = z
  .strictObject({
    invites: z.array(
      z.strictObject({
        roomId: z.string(),
        invitedBy: z.string(),
        expiresAt: z.iso.datetime().describe('Past this instant the invite and its reserved slot are gone.'),
      }),
    ),
  })
  .meta({ id: 'MyInvites' });
