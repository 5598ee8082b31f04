import { DependencyUnavailableError } from '../../../../core/errors';
import { newReservation } from '../../../../core/rooms/document';
import {
  LargeMembers,
  largeClaimOf,
  type MemberTransaction,
  type TransactionOutcome,
} from '../../../../core/rooms/large-members';
import type { Room } from '../../../../core/rooms/model';
import { hashRegistrationKey } from '../../../../core/rooms/registration-keys';
import { equals, type Item } from '../../../../core/rooms/room-expression';
import { Rooms, completeWrite } from '../../../../core/rooms/rooms';
import { constantsOf } from '../../../../core/rooms/session-model';
import { storedKeyHash } from '../../../../core/rooms/document';
import { aRoom } from '../../../helpers/factories';
import { MemoryLargeMemberItems } from '../../../helpers/fakes/large-members';
import { MemoryRoomItems } from '../../../helpers/fakes/rooms';

const t0 = Date.parse('2026-01-01T00:01:00.000Z');
const reservedMs = 60_000;

/** Member items in memory that let a test act between the join's read and its transaction. */
class Scripted extends MemoryLargeMemberItems {
  beforeTransact?: (tx: MemberTransaction) => TransactionOutcome | undefined;
  afterExpiredRead?: (roomId: string) => Promise<void>;

  override async transact(roomId: string, tx: MemberTransaction) {
    return this.beforeTransact?.(tx) ?? super.transact(roomId, tx);
  }

  override async expiredBefore(roomId: string, now: number, limit: number): Promise<Item[]> {
    const found = await super.expiredBefore(roomId, now, limit);
    await this.afterExpiredRead?.(roomId);
    return found;
  }
}

function subject() {
  const items = new MemoryRoomItems();
  const members = new Scripted(items);
  const rooms = new Rooms(items, { largeMembers: members });
  const sleeps: number[] = [];
  const large = new LargeMembers(members, (write) => completeWrite(write, 3_600), 3_600, {
    sleep: async (ms) => {
      sleeps.push(ms);
    },
  });
  return { rooms, members, large, sleeps };
}

async function largeRoom(rooms: Rooms, maxMembers: number): Promise<Room> {
  const made = aRoom({
    state: 'ready',
    hosting: 'peerHosted',
    players: 0,
    maxPlayers: maxMembers,
    readyAt: new Date(t0 - 1_000).toISOString(),
    constants: {
      maxMembers,
      visibility: 'open',
      timeouts: { reservedMs, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
      capabilities: ['large'],
    },
  });
  await rooms.createWithMember(made);
  return made;
}

const keyOf = (name: string) => {
  const hex = hashRegistrationKey(name);
  return { hex, stored: storedKeyHash(hex) };
};

const claimOf = (made: Room, account: string, at: number) =>
  largeClaimOf(
    {
      members: [
        {
          account,
          keyHash: keyOf(`${account}-key`).stored,
          member: newReservation(made, at, constantsOf(made).timeouts, []),
        },
      ],
    },
    made,
  );

describe('LargeMembers', () => {
  it('leaves out of its removals an expired member that changed meanwhile, and still joins', async () => {
    const { rooms, members, large } = subject();
    const made = await largeRoom(rooms, 2);
    for (const account of ['alice', 'bob']) await large.claim(made.roomId, claimOf(made, account, t0), t0);
    const late = t0 + reservedMs + 1;
    // Bob's reservation changes between the join's read of the expired and its transaction.
    members.afterExpiredRead = async (roomId) => {
      members.afterExpiredRead = undefined;
      await members.transact(roomId, {
        room: { kind: 'none' },
        members: [
          {
            kind: 'update',
            account: 'bob',
            condition: equals(['account'], 'bob'),
            change: { set: [[['m', 't'], late]] },
          },
        ],
      });
    };
    expect(await large.claim(made.roomId, claimOf(made, 'carol', late), late)).toMatchObject({ state: 'Claimed' });
    expect(await members.get(made.roomId, 'bob')).toBeDefined();
    expect(await members.get(made.roomId, 'alice')).toBeUndefined();
    expect((await rooms.read(made.roomId))?.room.players).toBe(2);
  });

  it('answers UNAVAILABLE after a bounded number of conflicts on a confirm, backing off between them', async () => {
    const { rooms, members, large, sleeps } = subject();
    const made = await largeRoom(rooms, 5);
    await large.claim(made.roomId, claimOf(made, 'alice', t0), t0);
    let conflicts = 0;
    members.beforeTransact = () => {
      conflicts++;
      // Far more than any bounded retry makes: past them the write goes through.
      return conflicts > 50
        ? undefined
        : { applied: false, failed: 'conflict', cause: new Error('TransactionConflict') };
    };
    const read = (await rooms.read(made.roomId))!;
    const error = await large
      .confirm(read, keyOf('alice-key').hex, 'r-joined', new Date(t0 + 1_000))
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DependencyUnavailableError);
    expect(conflicts).toBeLessThan(50);
    expect(sleeps).toHaveLength(conflicts - 1);
  });
});
