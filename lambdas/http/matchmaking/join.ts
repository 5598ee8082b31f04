import { assertRoomSettingsFitTask } from '../../../core/gameservers/task-overrides';
import { bucketOf } from '../../../core/matchmaking/bucket';
import { findOrCreate, type MatchResult } from '../../../core/matchmaking/find-or-create';
import { placementRequestOf } from '../placement-request';
import { createRoom } from '../../../core/rooms/create';
import { assertSessionSizeAllowed } from '../../../core/rooms/create-resolution';
import { joinRoom, type JoinRoomCommand } from '../../../core/rooms/join';
import { matchmakingRequestSchema } from '../../../core/rooms/schema';
import { platform, type Platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { idempotent } from '../idempotency';
import { createRoomDependencies, versionsOf } from '../rooms/create-dependencies';
import { deploymentOf } from '../../../core/gameservers/deployment';
import { refuseUndeclaredBuild, tellServerOfMismatch } from '../../../core/versions/notice';
import { joinAnswerView } from '../rooms/session-view';
import { roomResponse, spawningHeaders } from '../../../core/rooms/room-response';
import { verifyParty } from '../../../core/auth/party-proof';
import { AbuseRateLimitedError, AccountBannedError } from '../../../core/abuse/errors';
import { PartyMemberRefusedError } from '../../../core/rooms/join-errors';
import { RequestInvalidError } from '../../../core/errors';

export const handler = httpHandler(
  { auth: {}, body: matchmakingRequestSchema },
  idempotent('matchmakingJoin', async ({ body, principal, headers, sourceIp }) => {
    const p = platform();
    // The room this may create gets these settings; refused before any pointer moves.
    assertRoomSettingsFitTask({ ...body.settings, ...body.criteria });
    const party = body.party && (await verifyParty(body.party, principal.account, p));
    // Matchmaking claims several rooms' slots in turn: every account is checked once, up front.
    await Promise.all([
      p.abuse.assertJoinAllowed(principal.account, p.now()),
      ...(party ?? []).map((member) => assertMemberAllowed(p, member.account)),
    ]);
    const started = p.now().getTime();
    const answerBy = new Date(started + p.config.createWaitS * 1000);
    const configuration = await p.gameConfigurations.get(body.gameId, body.version);
    assertPartyFits(party, configuration.maxPlayers);
    // Matchmaking makes rooms of the configuration's size without a template: never a large session.
    assertSessionSizeAllowed(configuration.maxPlayers, undefined, 'body.version');
    // A build the configuration does not start is refused before any pointer moves.
    refuseUndeclaredBuild(configuration, body.protocol, principal.account, p.now());
    // Checked builds fill rooms of their own; with the check off, every build shares one bucket.
    const client = configuration.checkProtocol === false ? undefined : body.protocol;
    // The bucket is per region: the region a new room would go to now, fallback included.
    const region = await p.placement.regionFor(placementRequestOf(p, body, { headers, sourceIp }));
    const bucket = bucketOf({
      gameId: body.gameId,
      version: body.version,
      region,
      criteria: body.criteria,
      ...(client ? { protocol: client.hash } : {}),
    });
    const sleep = (ms: number) => p.clock.sleep(ms);
    const versions = versionsOf(p);
    const result: MatchResult = await findOrCreate(bucket, body.criteria, {
      pointers: p.fillingRooms,
      findRoom: (roomId) => p.rooms.find(roomId),
      newRoomId: p.newId,
      now: p.now,
      sleep,
      deployment: deploymentOf(configuration),
      slots: 1 + (party?.length ?? 0),
      refused: (room, error) =>
        tellServerOfMismatch(room, { account: principal.account, client: client!, error }, { ...versions, now: p.now }),
      join: bucketJoin(p, {
        account: principal.account,
        scopes: principal.scopes,
        criteria: body.criteria,
        ...(client ? { protocol: client } : {}),
        ...(party ? { party } : {}),
        answerBy,
      }),
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
            ...(body.protocol ? { protocol: body.protocol } : {}),
            ...(party ? { party } : {}),
          },
          // Filed under the bucket's region: that region or, with no healthy host left, 503.
          createRoomDependencies(p, { configuration, startedMs: started, placement: { region }, roomId }),
        );
        return {
          room: created.room,
          reservation: created.reservation,
          ...(created.reservations ? { reservations: created.reservations } : {}),
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
        ...(result.reservations ? { reservations: result.reservations } : {}),
      },
      result.spawning ? spawningHeaders(p.config.spawnPollAfterS) : {},
    );
  }),
);

/** A party member's own join checks (ban, rate limit); a refusal names the member. */
async function assertMemberAllowed(p: Platform, account: string): Promise<void> {
  try {
    await p.abuse.assertJoinAllowed(account, p.now());
  } catch (error) {
    if (error instanceof AccountBannedError || error instanceof AbuseRateLimitedError) {
      throw new PartyMemberRefusedError(account, error);
    }
    throw error;
  }
}

/** A party bigger than the bucket's rooms would fit no room, and none may be made for it. */
function assertPartyFits(party: readonly unknown[] | undefined, maxPlayers: number): void {
  if (!party || party.length < maxPlayers) return;
  throw new RequestInvalidError(
    `A party fits this game's rooms of ${maxPlayers} only with at most ${maxPlayers - 1} other members.`,
    [{ field: 'body.party', message: `must hold at most ${maxPlayers - 1} entries` }],
  );
}

/**
 * Joins a room of the bucket. The claim's condition holds the criteria (a room whose settings
 * changed since it was read is passed over) and the client's build; the room's server is told
 * of a refused build only if the refusal is the answer (`refused`).
 */
function bucketJoin(
  p: Platform,
  joiner: Omit<JoinRoomCommand, 'roomId'> & { readonly answerBy: Date },
): (roomId: string) => Promise<MatchResult> {
  const { answerBy, ...command } = joiner;
  return async (roomId) => {
    const joined = await joinRoom(
      { ...command, roomId },
      {
        sessions: p.rooms,
        cache: p.cache,
        now: p.now,
        sleep: (ms) => p.clock.sleep(ms),
        answerBy,
        heartbeatTimeoutS: p.config.heartbeatTimeoutS,
        versions: { components: p.protocolComponents },
      },
    );
    return { ...joined, created: false };
  };
}
