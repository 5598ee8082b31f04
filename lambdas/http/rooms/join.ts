import * as z from 'zod';
import { joinRoom } from '../../../core/rooms/join';
import { clientProtocolSchema, partySchema, roomIdSchema } from '../../../core/rooms/schema';
import { verifyParty } from '../../../core/auth/party-proof';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { idempotent } from '../idempotency';
import { roomResponse, spawningHeaders } from '../../../core/rooms/room-response';
import { joinAnswerView } from './session-view';
import { versionsOf } from './create-dependencies';

export const joinRoomRequestSchema = z
  .strictObject({ protocol: clientProtocolSchema, party: partySchema })
  .meta({ id: 'JoinRoomRequest' });

export const handler = httpHandler(
  { auth: {}, params: z.strictObject({ roomId: roomIdSchema }), body: joinRoomRequestSchema },
  idempotent('joinRoom', async ({ params, principal, body }) => {
    const p = platform();
    const party = body.party && (await verifyParty(body.party, principal.account, p));
    const result = await joinRoom(
      {
        roomId: params.roomId,
        account: principal.account,
        scopes: principal.scopes,
        ...(body.protocol ? { protocol: body.protocol } : {}),
        ...(party ? { party } : {}),
      },
      {
        sessions: p.rooms,
        cache: p.cache,
        // Ban (read ≤ 1 s ago) and rate limit (one write), beside the claim.
        accountChecks: p.abuse.checks('join', principal.account, p.now()),
        partyChecks: (account) => p.abuse.checks('join', account, p.now()),
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
      {
        room: await joinAnswerView(p, result.room, principal.account),
        reservation: result.reservation,
        ...(result.reservations ? { reservations: result.reservations } : {}),
      },
      result.spawning ? spawningHeaders(p.config.spawnPollAfterS) : {},
    );
  }),
);
