import { removeMemberAsArbiter } from '../../../../core/rooms/arbiter-writes';
import { StaleEpochError } from '../../../../core/rooms/host-epoch';
import type { RoomStore } from '../../../../core/rooms/room-store';
import { saveState } from '../../../../core/rooms/saved-state';
import { constantsOf } from '../../../../core/rooms/session-model';
import { memoryRoomStore } from '../../../helpers/fakes/rooms';
import { aRoom } from '../../../helpers/factories';

const now = new Date('2026-01-01T00:01:00.000Z');
const member = (account: string) => ({ account, keyHash: 'ab'.repeat(32), scopes: [], createdAt: now.toISOString() });

/** alice arbitrates at epoch 1; bob and carol are active members. */
async function session(rooms: RoomStore): Promise<string> {
  const made = aRoom({ state: 'ready', hosting: 'peerHosted', host: { epoch: 1, account: 'alice', seenAt: 0 } });
  await rooms.createWithMember({ ...made, constants: constantsOf(made), players: 1 }, member('alice'));
  const active = { s: 2, t: now.getTime() - 1_000 };
  await rooms.writeSession(made.roomId, {
    change: {
      set: [
        [['members', 'alice'], active],
        [['members', 'bob'], active],
        [['members', 'carol'], active],
        [['players'], 3],
      ],
    },
    now,
  });
  return made.roomId;
}

/**
 * The arbiter's read saw it as the host; an election (bob, epoch 2) lands before its write.
 * Only the write's condition stands between the two: the former arbiter must be refused.
 */
function electedBetweenReadAndWrite(rooms: RoomStore, roomId: string) {
  let elected = false;
  return {
    sessions: {
      read: async (id: string) => {
        const read = await rooms.read(id);
        if (!elected) {
          elected = true;
          await rooms.writeSession(roomId, {
            change: { set: [[['host'], { e: 2, a: 'bob', s: now.getTime() }]] },
            now,
          });
        }
        return read;
      },
    },
    rooms,
    now: () => now,
  };
}

describe('arbiter writes are fenced by the write, not by the read', () => {
  it('a save read at epoch 1 and written after an election is refused 409 STALE_EPOCH, and saves nothing', async () => {
    const rooms = memoryRoomStore();
    const roomId = await session(rooms);
    const deps = electedBetweenReadAndWrite(rooms, roomId);
    const saving = saveState({ roomId, account: 'alice', epoch: 1, state: { round: 9 } }, deps);
    await expect(saving).rejects.toBeInstanceOf(StaleEpochError);
    await expect(saving).rejects.toMatchObject({ details: { epoch: 2 } });
    expect((await rooms.read(roomId))?.saved).toBeUndefined();
  });

  it('a removal read at epoch 1 and written after an election is refused, and removes nobody', async () => {
    const rooms = memoryRoomStore();
    const roomId = await session(rooms);
    const deps = electedBetweenReadAndWrite(rooms, roomId);
    await expect(
      removeMemberAsArbiter({ roomId, account: 'alice', epoch: 1, member: 'carol' }, deps),
    ).rejects.toBeInstanceOf(StaleEpochError);
    expect(Object.keys((await rooms.read(roomId))?.doc.members ?? {}).sort()).toEqual(['alice', 'bob', 'carol']);
  });
});
