import { RoomAlreadyEndedError, RoomNotFoundError } from '../../../../core/rooms/errors';
import { closeRoomByAdmin } from '../../../../core/rooms/close';
import type { Room } from '../../../../core/rooms/model';
import { Rooms } from '../../../../core/rooms/rooms';
import { aRoom } from '../../../helpers/factories';
import { MemoryRoomItems } from '../../../helpers/fakes/rooms';

const now = new Date('2026-01-01T00:00:10.000Z');
const placement = { taskId: 'task-1', host: '127.0.0.1', ports: [7777] };

function setup() {
  const rooms = new Rooms(new MemoryRoomItems());
  const stopped: [string, string][] = [];
  const released: string[] = [];
  const deps = {
    rooms,
    spawner: { stop: async (taskId: string, reason: string) => void stopped.push([taskId, reason]) },
    slots: { release: async (roomId: string) => (released.push(roomId), true) },
    now: () => now,
  };
  const seed = async (room: Room) => {
    await rooms.createWithMember(room);
    return room.roomId;
  };
  return { rooms, deps, stopped, released, seed };
}

describe('closeRoomByAdmin', () => {
  it.each(['spawning', 'ready'] as const)(
    'closes a %s room for good, stops its server and gives back its slot',
    async (state) => {
      const { rooms, deps, stopped, released, seed } = setup();
      const roomId = await seed(aRoom({ state, placement }));

      const room = await closeRoomByAdmin(roomId, deps);

      expect(room).toMatchObject({ roomId, state: 'closed', failureReason: 'closed-by-admin', changeNumber: 2 });
      expect((await rooms.read(roomId))?.room).toMatchObject({ state: 'closed', failureReason: 'closed-by-admin' });
      expect(stopped).toEqual([['task-1', 'closed-by-admin']]);
      expect(released).toEqual([roomId]);
    },
  );

  it('answers the second of two operators closing at once 409, with the room closed once and stopped once', async () => {
    const { deps, stopped, seed } = setup();
    const roomId = await seed(aRoom({ placement }));

    const outcomes = await Promise.allSettled([closeRoomByAdmin(roomId, deps), closeRoomByAdmin(roomId, deps)]);

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    const refused = outcomes.find((o) => o.status === 'rejected') as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(RoomAlreadyEndedError);
    expect(refused.reason).toMatchObject({
      status: 409,
      details: { state: 'closed', failureReason: 'closed-by-admin' },
    });
    expect(stopped).toHaveLength(1);
  });

  it('leaves a failed room as it ended (409) and answers 404 for a room that does not exist', async () => {
    const { rooms, deps, stopped, seed } = setup();
    const roomId = await seed(aRoom({ placement }));
    await rooms.markFailed(roomId, 'crashed', now);

    await expect(closeRoomByAdmin(roomId, deps)).rejects.toMatchObject({
      status: 409,
      details: { state: 'failed', failureReason: 'crashed' },
    });
    await expect(closeRoomByAdmin('no-such-room', deps)).rejects.toBeInstanceOf(RoomNotFoundError);
    expect((await rooms.read(roomId))?.room.state).toBe('failed');
    expect(stopped).toEqual([]);
  });
});
