import { resolveCreateRequest } from '../../../core/rooms/create-resolution';
import { createPeerHostedSession } from '../../../core/rooms/create-peer-hosted';
import { createRoom } from '../../../core/rooms/create';
import { createRoomRequestSchema } from '../../../core/rooms/schema';
import { roomResponse, sessionRoomView, spawningHeaders } from '../../../core/rooms/room-response';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { idempotent } from '../idempotency';
import { createRoomDependencies, listStandbyAhead } from './create-dependencies';
import { memberViewOf } from './session-view';
import { placementRequestOf } from '../placement-request';

export const handler = httpHandler(
  { auth: {}, body: createRoomRequestSchema },
  idempotent('createRoom', async ({ body, principal, headers, sourceIp }) => {
    const p = platform();
    // The caller's wait counts from the request, not from the spawn: the gateway's 30 s include both.
    const started = p.now().getTime();
    const placement = placementRequestOf(p, body, { headers, sourceIp });
    // The region ranking a create needs next, started now: it overlaps the checks below.
    const { gameId, version } = body;
    const prefetched = gameId && version ? { ranking: settledLater(p.placement.rankRecent(placement)) } : undefined;
    // A refusal this process knows (a ban read, a full log) first, then the account checks beside
    // the create's own reads; a refusal by the abuse guard still wins over any other.
    const checks = p.abuse.checks('create', principal.account, p.now());
    await checks.known();
    // A configuration changes by an admin's hand: a create uses one read at most 5 s ago.
    const resolving = resolveCreateRequest(body, {
      templates: p.templates,
      configurations: { get: (gameId, version) => p.gameConfigurations.recent(gameId, version) },
    });
    // A warm create's first read, the pool's ready servers, runs beside the account checks.
    if (gameId && version) listStandbyAhead(p, { gameId, version });
    const [allowed, resolved] = await Promise.allSettled([checks.decide(), resolving]);
    if (allowed.status === 'rejected') throw allowed.reason;
    if (resolved.status === 'rejected') throw resolved.reason;
    const session = resolved.value;
    const stored = { template: session.template, constants: session.constants, properties: session.properties };
    if (session.hosting.kind === 'peerHosted') {
      // No server to place: the best region, whatever its hosts.
      const region = (await p.placement.rank(placement)).ranked[0]?.region ?? p.config.roomRegion;
      // resolveCreateSession only makes a peer-hosted session from a template.
      const created = await createPeerHostedSession(
        {
          account: principal.account,
          scopes: principal.scopes,
          region,
          settings: body.settings,
          session: { ...stored, template: session.template ?? '' },
        },
        { rooms: p.rooms, now: p.now, newRoomId: p.newId },
      );
      return roomResponse(201, {
        room: await memberViewOf(p, created.room, principal.account),
        reservation: created.reservation,
      });
    }
    const { configuration } = session.hosting;
    const result = await createRoom(
      {
        account: principal.account,
        scopes: principal.scopes,
        gameId: configuration.gameId,
        version: configuration.version,
        settings: body.settings,
        maxPlayers: session.constants.maxMembers,
        region: p.config.roomRegion,
        session: stored,
        ...(body.protocol ? { protocol: body.protocol } : {}),
      },
      {
        ...createRoomDependencies(p, {
          configuration,
          startedMs: started,
          placement,
          // Prefetched for the configuration the body named: a template's may be another.
          ...(prefetched && configuration.gameId === body.gameId && configuration.version === body.version
            ? { ranking: prefetched.ranking }
            : {}),
        }),
        // Only this route takes standby servers: matchmaking's create names its room up front.
        warmPool: p.warmPool,
      },
    );
    if (result.state === 'Spawning') {
      // The creator's seat is held already (its reservation pending until `inited`): the key
      // is in this answer, as in matchmaking's 202, and nowhere else. A retry with the same
      // Idempotency-Key replays this answer, key included, and holds no second seat.
      return roomResponse(
        202,
        { room: await memberViewOf(p, result.room, principal.account), reservation: result.reservation },
        { location: `/v1/rooms/${result.room.roomId}`, ...spawningHeaders(p.config.spawnPollAfterS) },
      );
    }
    return roomResponse(201, {
      room: result.document
        ? sessionRoomView(result.room, result.document, p.now(), principal.account)
        : await memberViewOf(p, result.room, principal.account),
      reservation: result.reservation,
    });
  }),
);

/**
 * A read started ahead that the request may end without awaiting (a refusal, another
 * configuration): its failure is then nobody's, and must not surface as an unhandled rejection.
 */
function settledLater<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined);
  return read;
}
