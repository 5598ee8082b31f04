import * as z from 'zod';
import { RoomNotFoundError } from '../../../core/rooms/errors';
import { isLiveMember, memberAt, memberStateOf } from '../../../core/rooms/document';
import { roomIdSchema } from '../../../core/rooms/schema';
import { isLargeSession, memberStates } from '../../../core/rooms/session-model';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';

/** The cursor is the last account of the page before, opaque to clients (base64url). */
const cursorSchema = z
  .string()
  .max(1024)
  .regex(/^[A-Za-z0-9_-]+$/, 'is not a cursor this route gave');

export const membersQuerySchema = z.strictObject({ cursor: cursorSchema.optional() }).meta({ id: 'RoomMembersQuery' });

/**
 * `GET /v1/rooms/{roomId}/members` (admin): a session's live members, 100 a page in account
 * order. A large session's come from its member items (one Query a page); another session's
 * from its document, in one page.
 */
export const handler = httpHandler(
  { auth: { scope: 'admin' }, params: z.strictObject({ roomId: roomIdSchema }), query: membersQuerySchema },
  async ({ params, query }) => {
    const p = platform();
    const read = await p.rooms.read(params.roomId);
    if (!read) throw new RoomNotFoundError(params.roomId);
    const now = p.now().getTime();
    const after = query.cursor === undefined ? undefined : Buffer.from(query.cursor, 'base64url').toString('utf8');
    const page = isLargeSession(read.room.constants)
      ? await p.rooms.large.page(params.roomId, read.room, now, after)
      : {
          members: Object.entries(read.doc.members)
            .filter(([, member]) => isLiveMember(member, read.room, now))
            .sort(([a], [b]) => (a < b ? -1 : 1))
            .map(([account, member]) => ({ account, member })),
        };
    return {
      status: 200,
      body: {
        members: page.members.map(({ account, member }) => ({
          account,
          state: memberStateOf(memberAt(member, read.room, now).s),
          properties: { custom: member.q ?? {} },
        })),
        ...('last' in page && page.last !== undefined
          ? { cursor: Buffer.from(page.last, 'utf8').toString('base64url') }
          : {}),
      },
    };
  },
);

/** The answer's shape (docs/openapi.json). */
export const membersPageSchema = z
  .object({
    members: z.array(
      z.object({
        account: z.string(),
        state: z.enum(memberStates),
        properties: z.object({ custom: z.record(z.string(), z.unknown()) }),
      }),
    ),
    cursor: z.string().optional().describe('Present while more members may follow: pass it as `cursor`.'),
  })
  .meta({ id: 'RoomMembersPage' });
