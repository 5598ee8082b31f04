import { RoomNotFoundError } from '../../../../core/rooms/errors';
import type { StoredMember } from '../../../../core/rooms/document';
import { SessionMembersOnlyError, SessionPreconditionFailedError } from '../../../../core/rooms/session-errors';
import { patchOwnMember, patchRoomProperties, readSessionAs } from '../../../../core/rooms/patch';
import { memberUpdate, roomPropertiesUpdate } from '../../../../core/rooms/patch-conditions';
import { applyChange, holds } from '../../../../core/rooms/room-expression';
import type { RoomStore, RoomWrite, SessionWriteResult, SessionRead } from '../../../../core/rooms/room-store';
import { aRoom } from '../../../helpers/factories';

const now = new Date('2026-01-01T00:01:00.000Z');
const alice: StoredMember = { s: 0, t: now.getTime() - 10 };

/** A session in memory whose writes answer as scripted: the use case's judgement is under test. */
class ScriptedWrites implements Pick<RoomStore, 'writeSession' | 'endSession'> {
  readonly sent: RoomWrite[] = [];
  readonly ended: number[] = [];
  constructor(private readonly answers: SessionWriteResult[]) {}
  async writeSession(_roomId: string, write: RoomWrite): Promise<SessionWriteResult> {
    this.sent.push(write);
    const answer = this.answers.shift();
    if (!answer) throw new Error('no more scripted answers');
    return answer;
  }
  async endSession(_roomId: string, changeNumber: number): Promise<boolean> {
    this.ended.push(changeNumber);
    return true;
  }
}

const readOf = (changeNumber: number, members: Record<string, StoredMember> = { alice }, extra = {}): SessionRead => ({
  room: aRoom({
    changeNumber,
    players: Object.keys(members).length,
    properties: { joinability: 'open', custom: {} },
    constants: {
      maxMembers: 4,
      visibility: 'private',
      timeouts: { reservedMs: 1_000, readyMs: null, inactiveMs: null, sessionEmptyMs: 0 },
      custom: {},
    },
    ...extra,
  }),
  doc: { members, gone: {} },
});
const deps = (read: SessionRead | undefined, writes: ScriptedWrites) => ({
  sessions: { read: async () => read },
  rooms: writes,
  now: () => now,
});

describe('the PATCH conditions', () => {
  const stored = {
    changeNumber: 7,
    players: 2,
    properties: { joinability: 'open', custom: { a: 1 } },
    members: { alice: { s: 0, t: 5 }, bob: { s: 0, t: 3, e: 4, k: 'h' } },
  };
  const base = {
    account: 'alice',
    memberT: 5,
    ifMatch: 7,
    expired: [{ account: 'bob', member: { s: 0, t: 3, e: 4 }, keyHash: 'h' }],
    now,
  };

  it('hold If-Match inside the write, with the writer as read and every removed member unchanged', () => {
    const write = roomPropertiesUpdate(base, { joinability: 'closed' }, true);
    expect(holds(write.condition!, stored)).toBe(true);
    for (const moved of [
      { ...stored, changeNumber: 8 },
      { ...stored, members: { ...stored.members, alice: { s: 1, t: 6 } } },
      { ...stored, members: { ...stored.members, bob: { s: 0, t: 3, e: 4, k: 'other' } } },
    ]) {
      expect(holds(write.condition!, moved)).toBe(false);
    }
    expect(applyChange(stored, write.change)).toEqual({
      changeNumber: 7,
      players: 1,
      properties: { joinability: 'closed', custom: { a: 1 } },
      members: { alice: { s: 0, t: 5 } },
    });
  });

  it("write only the member's own entry", () => {
    const write = memberUpdate({ ...base, expired: [] }, { member: { s: 1, t: 9, e: 19 }, custom: { x: 1 } });
    const written = applyChange(
      { ...stored, members: { ...stored.members, alice: { s: 0, t: 5, p: 3 } } },
      write.change,
    );
    expect(written.members).toEqual({ alice: { s: 1, t: 9, e: 19, q: { x: 1 } }, bob: stored.members.bob });
    expect(written.properties).toEqual(stored.properties);
  });
});

describe('patching a session', () => {
  it('answers 412 when the write was refused because another writer moved the change number', async () => {
    const writes = new ScriptedWrites([{ applied: false, current: readOf(8) }]);
    await expect(
      patchRoomProperties(
        { roomId: 'r', account: 'alice', ifMatch: 7, properties: { custom: {} } },
        deps(readOf(7), writes),
      ),
    ).rejects.toBeInstanceOf(SessionPreconditionFailedError);
    expect(writes.sent).toHaveLength(1);
  });

  it('without If-Match, a refused write is rebuilt from the item as it stood and sent again', async () => {
    const done = readOf(9);
    const writes = new ScriptedWrites([
      { applied: false, current: readOf(8) },
      { applied: true, read: done },
    ]);
    const result = await patchOwnMember({ roomId: 'r', account: 'alice', state: 'ready' }, deps(readOf(7), writes));
    expect(result).toBe(done);
    expect(writes.sent).toHaveLength(2);
  });

  it('refuses non-members and members whose time ran out (403), sending nothing', async () => {
    const cases: Record<string, StoredMember>[] = [{ bob: alice }, { alice: { ...alice, e: now.getTime() } }];
    for (const members of cases) {
      const writes = new ScriptedWrites([]);
      await expect(
        patchRoomProperties(
          { roomId: 'r', account: 'alice', properties: {} },
          deps(readOf(7, { ...members, carol: { s: 2, t: 1 } }), writes),
        ),
      ).rejects.toBeInstanceOf(SessionMembersOnlyError);
      expect(writes.sent).toEqual([]);
    }
  });

  it('answers 404 for a session empty past sessionEmptyMs without writing, and hides a private one from non-members', async () => {
    const empty = readOf(7, { alice: { ...alice, e: now.getTime() - 1 } });
    const writes = new ScriptedWrites([]);
    await expect(readSessionAs('r', 'alice', deps(empty, writes))).rejects.toBeInstanceOf(RoomNotFoundError);
    // A GET never writes: a write path or the sweeper ends the session.
    expect(writes.ended).toEqual([]);
    expect(writes.sent).toEqual([]);
    await expect(readSessionAs('r', 'bob', deps(readOf(7), new ScriptedWrites([])))).rejects.toBeInstanceOf(
      RoomNotFoundError,
    );
    await expect(readSessionAs('r', 'alice', deps(readOf(7), new ScriptedWrites([])))).resolves.toBeDefined();
  });
});
