import { RequestInvalidError } from '../../../core/errors';
import { resolveCreateRequest } from '../../../core/sessions/create-resolution';
import { resolveRegion } from '../../../core/placement/region';
import { createRoom } from '../../../core/rooms/create';
import { toRoomView } from '../../../core/rooms/model';
import { createRoomRequestSchema } from '../../../core/rooms/schema';
import { platform } from '../../dependencies';
import { httpHandler } from '../middleware';
import { idempotent } from '../idempotency';
import { serverTokenMinter } from './server-token';

export const handler = httpHandler(
  { auth: {}, body: createRoomRequestSchema },
  idempotent('createRoom', async ({ body, principal }) => {
    const p = platform();
    await p.abuse.assertCreateAllowed(principal.account, p.now());
    // The caller's wait counts from the request, not from the spawn: the gateway's 30 s include both.
    const answerBy = new Date(p.now().getTime() + p.config.createWaitS * 1000);
    const session = await resolveCreateRequest(body, { templates: p.templates, configurations: p.gameConfigurations });
    // A peer-hosted session needs the session-document store; until it is there, refuse it plainly.
    if (session.hosting.kind === 'peerHosted') {
      throw new RequestInvalidError('Peer-hosted sessions cannot be created on this platform yet.', [
        { field: 'body.template', message: 'is peer-hosted, which this platform does not run yet' },
      ]);
    }
    const { configuration } = session.hosting;
    const region = resolveRegion(body, [p.config.roomRegion], p.config.roomRegion);
    const result = await createRoom(
      {
        account: principal.account,
        scopes: principal.scopes,
        gameId: configuration.gameId,
        version: configuration.version,
        settings: body.settings,
        maxPlayers: session.constants.maxMembers,
        region,
      },
      {
        rooms: p.rooms,
        configuration,
        spawner: p.spawner,
        now: p.now,
        newRoomId: p.newId,
        mintServerToken: serverTokenMinter(p, configuration),
        sleep: (ms) => p.clock.sleep(ms),
        answerBy,
      },
    );
    if (result.state === 'Spawning') {
      return {
        status: 202,
        body: { room: toRoomView(result.room) },
        headers: { location: `/v1/rooms/${result.room.roomId}` },
      };
    }
    return { status: 201, body: { room: toRoomView(result.room), reservation: result.reservation } };
  }),
);
