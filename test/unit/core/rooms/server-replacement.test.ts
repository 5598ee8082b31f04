import { handleControllerRequest } from '../../../../core/controller-events/handle';
import type { ControllerEventDependencies } from '../../../../core/controller-events/ports';
import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { deploymentOf } from '../../../../core/gameservers/deployment';
import type { SpawnRequest, Spawner } from '../../../../core/gameservers/spawner';
import type { ControllerReply, ControllerRequest } from '../../../../core/protocol/controller-messages';
import type { StoredMember } from '../../../../core/rooms/document';
import type { Room } from '../../../../core/rooms/model';
import { roomItem } from '../../../../core/rooms/room-item';
import { Rooms } from '../../../../core/rooms/rooms';
import { maxServerReplacements } from '../../../../core/rooms/replacement';
import { replaceOrFail } from '../../../../core/rooms/server-replacement';
import { defaultConstants } from '../../../../core/rooms/session-model';
import { aRoom } from '../../../helpers/factories';
import { MemoryRoomItems } from '../../../helpers/fakes/rooms';

/**
 * A dedicated room's server dies: the use case (core/rooms/server-replacement.ts) on the
 * in-memory store, driven through the controller-events consumer as its sidecars would.
 */
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const sentAt = new Date(t0).toISOString();
const configuration = { spawnTimeoutS: 20, serverScopes: [] } as unknown as GameServerConfiguration;

function setup(migrateHost: boolean) {
  const items = new MemoryRoomItems();
  const rooms = new Rooms(items);
  const spawned: SpawnRequest[] = [];
  const stopped: string[] = [];
  const replies: ControllerReply[] = [];
  const clock = { now: new Date(t0 + 60_000) };
  const current = { configuration };
  const spawner: Spawner = {
    spawn: async (request) => {
      spawned.push(request);
      return { taskId: `task-${spawned.length + 1}`, host: '127.0.0.1', ports: [38000 + spawned.length] };
    },
    stop: async (taskId) => void stopped.push(taskId),
  };
  const replaceDeps = {
    rooms,
    configuration: async () => current.configuration,
    spawner,
    now: () => clock.now,
    mintServerToken: async () => 'server-token',
    log: { info: () => undefined, warn: () => undefined },
  };
  const deps = {
    rooms,
    now: () => clock.now,
    reply: async (_to: string, reply: ControllerReply) => void replies.push(reply),
    replaceServer: (roomId: string, death: Parameters<typeof replaceOrFail>[1]) =>
      replaceOrFail(roomId, death, replaceDeps),
    locateServer: async () => '127.0.0.1',
    configurations: { get: async () => current.configuration },
    log: { info: () => undefined, warn: () => undefined },
  } as unknown as ControllerEventDependencies;
  const room: Room = aRoom({
    state: 'ready',
    maxPlayers: 3,
    players: 3,
    readyAt: sentAt,
    lastHeartbeatAt: sentAt,
    address: '127.0.0.1',
    placement: { taskId: 'task-1', host: '127.0.0.1', ports: [38000] },
    constants: { ...defaultConstants({ maxPlayers: 3, reservationTimeoutS: 30 }), migrateHost },
    host: { epoch: 1, seenAt: t0 },
    deployment: deploymentOf(configuration),
  });
  const members: Record<string, StoredMember> = {
    alice: { s: 2, t: t0, k: 'key-alice', u: 'joined-1', a: t0, c: ['chat'] },
    bob: { s: 0, t: t0 + 50_000, k: 'key-bob' },
    // Its reservation ran out 30 s after it was made: its slot is free.
    carol: { s: 0, t: t0, k: 'key-carol' },
  };
  const create = async () => {
    await items.putNew(roomItem(room, members));
  };
  const send = (request: Record<string, unknown>) =>
    handleControllerRequest({ roomId: room.roomId, sentAt, ...request } as ControllerRequest, deps);
  return { rooms, room, create, send, spawned, stopped, replies, clock, current };
}

const rpc = (method: string, params: unknown, epoch: number) => ({
  type: 'rpc',
  method,
  params,
  epoch,
  correlationId: `${method}-${epoch}`,
  replyTo: 'reply-queue',
});

describe('a dedicated room whose game server dies', () => {
  it('with migrateHost: one replacement at the next epoch, members re-seated without keys, the saved state restored, the old server refused', async () => {
    const { rooms, room, create, send, spawned, stopped, replies, clock } = setup(true);
    await create();
    await send(rpc('save_state', { state: { round: 3 } }, 1));
    expect(replies.pop()).toMatchObject({ result: { epoch: 1 } });

    await send({ type: 'exited', reason: 'crashed', epoch: 1 });
    await send({ type: 'exited', reason: 'crashed', epoch: 1 }); // redelivered: nothing more
    const replaced = await rooms.read(room.roomId);
    expect(replaced?.room).toMatchObject({ state: 'spawning', host: { epoch: 2 }, players: 2 });
    expect(replaced?.room).not.toHaveProperty('address');
    expect(replaced?.doc.members).toMatchObject({
      alice: { s: 0, t: clock.now.getTime(), p: 30_000, c: ['chat'] },
      bob: { s: 0, t: clock.now.getTime(), p: 30_000 },
    });
    expect(Object.values(replaced?.doc.members ?? {}).map((m) => [m.k, m.u])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    expect(spawned.map((s) => [s.roomId, s.epoch])).toEqual([[room.roomId, 2]]);
    expect(stopped).toEqual(['task-1']);

    // The old server's late messages change nothing; a call it waits on is told so.
    await send({ type: 'heartbeat', epoch: 1 });
    await send(rpc('save_state', { state: { round: 4 } }, 1));
    expect(replies.pop()).toMatchObject({ error: { message: expect.stringMatching(/replaced/) } });
    expect((await rooms.read(room.roomId))?.room).not.toHaveProperty('lastHeartbeatAt');

    // The replacement's `inited` makes the room ready and hands it the saved state.
    await send(rpc('inited', {}, 2));
    expect(replies.pop()).toEqual({
      type: 'reply',
      correlationId: 'inited-2',
      result: { status: 'OK', restore: { epoch: 1, state: { round: 3 } } },
    });
    expect((await rooms.find(room.roomId))?.state).toBe('ready');
  });

  it(`fails a room that already lost ${maxServerReplacements} servers instead of starting another`, async () => {
    const { rooms, room, create, send, spawned, replies } = setup(true);
    await create();
    for (let epoch = 1; epoch <= maxServerReplacements; epoch++) {
      await send({ type: 'exited', reason: 'crashed', epoch });
      await send(rpc('inited', {}, epoch + 1));
      expect(replies.pop()).toMatchObject({ result: { status: 'OK' } });
    }
    expect(spawned).toHaveLength(maxServerReplacements);
    await send({ type: 'exited', reason: 'crashed', epoch: maxServerReplacements + 1 });
    expect(await rooms.find(room.roomId)).toMatchObject({ state: 'failed', failureReason: 'crashed' });
    expect(spawned).toHaveLength(maxServerReplacements);
  });

  it("after a configuration update: the replacement is current, its build unknown until it reports one, its players' builds still checked", async () => {
    const { rooms, room, send, replies, current, clock } = setup(true);
    const oldBuild = { h: '1111111111111111' };
    await rooms.createWithMember(
      { ...room, protocol: oldBuild },
      {
        account: 'dave',
        keyHash: 'ab'.repeat(32),
        scopes: [],
        createdAt: new Date(t0 + 50_000).toISOString(),
        v: oldBuild.h,
      },
    );
    current.configuration = { ...configuration, binary: '/game/server-2' } as GameServerConfiguration;
    await send(rpc('check_deployment', {}, 1));
    expect(replies.pop()).toMatchObject({ result: { current: false } });

    await send({ type: 'exited', reason: 'crashed', epoch: 1 });
    const replaced = await rooms.read(room.roomId);
    expect(replaced?.room).toMatchObject({ state: 'spawning', deployment: deploymentOf(current.configuration) });
    expect(replaced?.room).not.toHaveProperty('protocol');
    expect(replaced?.doc.members.dave).toMatchObject({ s: 0, t: clock.now.getTime(), p: 30_000, v: oldBuild.h });
    await send(rpc('check_deployment', {}, 2));
    expect(replies.pop()).toMatchObject({ result: { current: true } });
  });

  it('without migrateHost: the room fails, as before', async () => {
    const { rooms, room, create, send, spawned } = setup(false);
    await create();
    await send({ type: 'exited', reason: 'crashed', epoch: 1 });
    expect(await rooms.find(room.roomId)).toMatchObject({ state: 'failed', failureReason: 'crashed' });
    expect(spawned).toEqual([]);
  });
});
