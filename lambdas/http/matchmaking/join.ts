import { assertRoomSettingsFitTask } from '../../../core/gameservers/task-overrides';
import { bucketOf } from '../../../core/matchmaking/bucket';
import { findOrCreate, type MatchResult } from '../../../core/matchmaking/find-or-create';
import { placementRequestOf } from '../placement-request';
import { createRoom } from '../../../core/rooms/create';
import { joinRoom } from '../../../core/rooms/join';
import { matchmakingRequestSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { idempotent } from '../idempotency';
import { createRoomDependencies } from '../rooms/create-dependencies';
import { joinAnswerView } from '../rooms/session-view';
import { roomResponse, spawningHeaders } from '../../../core/rooms/room-response';

export const handler = httpHandler(
  { auth: {}, body: matchmakingRequestSchema },
  idempotent('matchmakingJoin', async ({ body, principal, headers, sourceIp }) => {
    const p = platform();
    // The room this may create gets these settings; refused before any pointer moves.
    assertRoomSettingsFitTask({ ...body.settings, ...body.criteria });
    await p.abuse.assertJoinAllowed(principal.account, p.now());
    const started = p.now().getTime();
    const answerBy = new Date(started + p.config.createWaitS * 1000);
    const configuration = await p.gameConfigurations.get(body.gameId, body.version);
    // The bucket is per region: the region a new room would go to now, fallback included.
    const region = await p.placement.regionFor(placementRequestOf(p, body, { headers, sourceIp }));
    const bucket = bucketOf({ gameId: body.gameId, version: body.version, region, criteria: body.criteria });
    const sleep = (ms: number) => p.clock.sleep(ms);
    const result: MatchResult = await findOrCreate(bucket, body.criteria, {
      pointers: p.fillingRooms,
      findRoom: (roomId) => p.rooms.find(roomId),
      newRoomId: p.newId,
      now: p.now,
      sleep,
      join: async (roomId) => {
        const joined = await joinRoom(
          { roomId, account: principal.account, scopes: principal.scopes },
          {
            sessions: p.rooms,
            cache: p.cache,
            now: p.now,
            sleep,
            answerBy,
            heartbeatTimeoutS: p.config.heartbeatTimeoutS,
          },
        );
        return { ...joined, created: false };
      },
      create: async (roomId) => {
        // Creating through matchmaking counts toward the same per-account room budget.
        await p.abuse.assertCreateAllowed(principal.account, p.now());
        const created = await createRoom(
          {
            account: principal.account,
            scopes: principal.scopes,
            gameId: body.gameId,
            version: body.version,
            settings: { ...body.settings, ...body.criteria },
            region,
            bucket,
          },
          // Filed under the bucket's region: that region or, with no healthy host left, 503.
          createRoomDependencies(p, { configuration, startedMs: started, placement: { region }, roomId }),
        );
        return {
          room: created.room,
          reservation: created.reservation,
          spawning: created.state === 'Spawning',
          created: true,
        };
      },
    });
    return roomResponse(
      result.spawning ? 202 : 200,
      {
        room: await joinAnswerView(p, result.room, principal.account),
        ...(result.reservation ? { reservation: result.reservation } : {}),
      },
      result.spawning ? spawningHeaders(p.config.spawnPollAfterS) : {},
    );
  }),
);
