import { randomUUID } from 'node:crypto';
import type { LiveRoomIndex, LiveRoomPages } from '../../../core/rooms/live-room-store';
import type { Room } from '../../../core/rooms/model';
import { aRoom } from '../factories';

/** An index under test and the way to arrange rooms in it, as the room store writes them. */
export interface LiveRoomsSubject {
  readonly live: LiveRoomIndex & LiveRoomPages;
  /** Writes rooms as created, each with its creator `alice` as a member. */
  seed(rooms: Room[]): Promise<void>;
  /** Fails a live room: it leaves the index. */
  end(roomId: string): Promise<void>;
}

/**
 * The rules every `LiveRoomIndex` keeps, run against the in-memory fake (unit) and the store on
 * DynamoDB Local (integration), so the fake cannot drift from the store.
 */
export function liveRoomsContract(subject: () => LiveRoomsSubject): void {
  /** A game of its own per test: the real table is shared by the file's tests. */
  const gameOf = () => `g-${randomUUID().slice(0, 8)}`;

  it('finds every live room, spawning or ready, of every game and region, and no ended one', async () => {
    const { live, seed, end } = subject();
    const gameId = gameOf();
    const room = (overrides: Partial<Room>) => aRoom({ gameId, players: 1, ...overrides });
    const spawning = room({ state: 'spawning' });
    const ready = room({ region: 'elsewhere', maxPlayers: 1 });
    const other = room({ version: '2' });
    const ended = room({});
    await seed([spawning, ready, other, ended]);
    await end(ended.roomId);

    const found = (await live.liveRooms()).filter((entry) => entry.room.gameId === gameId);

    expect(found.map((entry) => entry.room.roomId)).toEqual([spawning.roomId, ready.roomId, other.roomId].sort());
    expect(found.find((entry) => entry.room.roomId === ready.roomId)?.room).toMatchObject({
      state: 'ready',
      players: 1,
    });
  });

  it('tells which of the rooms asked about are live: ended and unknown rooms are not', async () => {
    const { live, seed, end } = subject();
    const gameId = gameOf();
    const [spawning, ready, ended] = [aRoom({ gameId, state: 'spawning' }), aRoom({ gameId }), aRoom({ gameId })];
    await seed([spawning, ready, ended]);
    await end(ended.roomId);

    const found = await live.liveAmong([spawning.roomId, ready.roomId, ended.roomId, `unknown-${gameId}`]);

    expect([...found].sort()).toEqual([spawning.roomId, ready.roomId].sort());
  });

  it('hands back each room with its session document, so the sweeper need not read it again', async () => {
    const { live, seed } = subject();
    const room = aRoom({ gameId: gameOf(), players: 1 });
    await seed([room]);

    const entry = (await live.liveRooms()).find((e) => e.room.roomId === room.roomId);

    expect(Object.keys(entry?.doc?.members ?? {})).toEqual(['alice']);
  });

  it('pages every live room exactly once, at most `limit` a page, across the shards; no ended one', async () => {
    const { live, seed, end } = subject();
    const gameId = gameOf();
    const rooms = Array.from({ length: 7 }, (_, i) => aRoom({ gameId, state: i % 2 ? 'spawning' : 'ready' }));
    await seed(rooms);
    await end(rooms[0]!.roomId);
    const seen: string[] = [];
    let nextToken: string | undefined;
    do {
      const page = await live.page(nextToken, 3);
      expect(page.rooms.length).toBeLessThanOrEqual(3);
      seen.push(...page.rooms.filter((room) => room.gameId === gameId).map((room) => room.roomId));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(seen.sort()).toEqual(
      rooms
        .slice(1)
        .map((room) => room.roomId)
        .sort(),
    );
    await expect(live.page('not-a-token', 3)).rejects.toMatchObject({ status: 400 });
  });
}
