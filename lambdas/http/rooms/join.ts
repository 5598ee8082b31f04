import * as z from 'zod';
import { joinRoom } from '../../../core/rooms/join';
import { clientProtocolSchema, roomIdSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { idempotent } from '../idempotency';
import { roomResponse, spawningHeaders } from '../../../core/rooms/room-response';
import { joinAnswerView } from './session-view';
import { versionsOf } from './create-dependencies';

export const joinRoomRequestSchema = z.strictObject({ protocol: clientProtocolSchema }).meta({ id: 'JoinRoomRequest' });

export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: joinRoomRequestSchema },
  idempotent('joinRoom', async ({ params, principal, body }) => {
    const p = platform();
    const result = await joinRoom(
      {
        roomId: params.roomId,
        account: principal.account,
        scopes: principal.scopes,
        ...(body.protocol ? { protocol: body.protocol } : {}),
      },
      {
        sessions: p.rooms,
        cache: p.cache,
        // Ban (read ≤ 1 s ago) and rate limit (one write), beside the claim.
        accountChecks: p.abuse.checks('join', principal.account, p.now()),
        now: p.now,
        sleep: (ms) => p.clock.sleep(ms),
        answerBy: new Date(p.now().getTime() + p.config.createWaitS * 1000),
        heartbeatTimeoutS: p.config.heartbeatTimeoutS,
        heartbeatIntervalS: p.config.heartbeatIntervalS,
        // Read only for a silent room: was it the room, or did the platform stop hearing?
        heartbeatPipeline: () => p.sweeperState.pipeline(),
        versions: versionsOf(p),
      },
    );
    return roomResponse(
      result.spawning ? 202 : 200,
      { room: await joinAnswerView(p, result.room, principal.account), reservation: result.reservation },
      result.spawning ? spawningHeaders(p.config.spawnPollAfterS) : {},
    );
  }),
);
