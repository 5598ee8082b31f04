import { randomUUID } from 'node:crypto';
import { RequestInvalidError } from '../../../core/errors';
import type { RoomListing } from '../../../core/rooms/list-store';
import { listedRoomFields, type Room } from '../../../core/rooms/model';
import { aRoom } from '../factories';
import { listedPartOf } from '../fakes/room-listing';

/** A listing under test and the way to arrange rooms in it, as the room store writes them. */
export interface RoomListingSubject {
  readonly listing: RoomListing;
  /** Writes rooms as created (live ones indexed). */
  seed(rooms: Room[]): Promise<void>;
  /** Fails a live room: it leaves the index. */
  end(roomId: string): Promise<void>;
}

/**
 * The rules every `RoomListing` keeps, run against the in-memory fake (unit) and the store on
 * DynamoDB Local (integration), so the fake cannot drift from the store.
 */
export function roomListingContract(subject: () => RoomListingSubject): void {
  /** A game of its own per test: the real table is shared by the file's tests. */
  const listingOf = () => ({ gameId: `g-${randomUUID().slice(0, 8)}`, version: '1', region: 'local' });
  const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000Z`;

  it('offers ready rooms with a free slot of one game version and region, oldest first', async () => {
    const { listing, seed, end } = subject();
    const query = listingOf();
    const room = (overrides: Partial<Room>) => aRoom({ ...query, ...overrides });
    const older = room({ createdAt: at(1) });
    const newer = room({ createdAt: at(5) });
    const ended = room({ createdAt: at(2) });
    await seed([
      newer,
      older,
      ended,
      room({ createdAt: at(3), players: 8, maxPlayers: 8 }),
      room({ createdAt: at(4), state: 'spawning' }),
      room({ createdAt: at(0), region: 'elsewhere' }),
      room({ createdAt: at(0), version: '2' }),
    ]);
    await end(ended.roomId);

    const page = await listing.listOpen(query, undefined, 25);

    expect(page.rooms.map((r) => r.roomId)).toEqual([older.roomId, newer.roomId]);
    // Every listed field as seeded (the store adds the default template's constants), and
    // nothing else: the index copies neither the members map nor the room's bookkeeping.
    expect(page.rooms[0]).toMatchObject(listedPartOf(older));
    const listed: readonly string[] = listedRoomFields;
    expect(Object.keys(page.rooms[0] ?? {}).filter((field) => !listed.includes(field))).toEqual([]);
    expect(page.nextToken).toBeUndefined();
  });

  it('offers only sessions anyone may join: not visible or private, not closed or inviteOnly', async () => {
    const { listing, seed } = subject();
    const query = listingOf();
    const room = (second: number, overrides: Partial<Room> = {}) =>
      aRoom({ ...query, createdAt: at(second), ...overrides });
    const constants = (visibility: 'open' | 'visible' | 'private') => ({
      maxMembers: 8,
      visibility,
      timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
    });
    const open = room(1, { constants: constants('open'), properties: { joinability: 'open', custom: {} } });
    const legacy = room(2);
    await seed([
      open,
      legacy,
      room(3, { constants: constants('visible') }),
      room(4, { constants: constants('private') }),
      room(5, { properties: { joinability: 'closed', custom: {} } }),
      room(6, { properties: { joinability: 'inviteOnly' } }),
    ]);

    const page = await listing.listOpen(query, undefined, 25);

    expect(page.rooms.map((r) => r.roomId)).toEqual([open.roomId, legacy.roomId]);
  });

  it('bounds the rooms examined, not returned: a page can be empty yet go on, and the tokens visit each open room once', async () => {
    const { listing, seed } = subject();
    const query = listingOf();
    const full = { players: 8, maxPlayers: 8 };
    const rooms = [
      aRoom({ ...query, createdAt: at(1), ...full }),
      aRoom({ ...query, createdAt: at(2) }),
      aRoom({ ...query, createdAt: at(3), ...full }),
      aRoom({ ...query, createdAt: at(4) }),
      aRoom({ ...query, createdAt: at(5) }),
    ];
    await seed(rooms);

    const first = await listing.listOpen(query, undefined, 1);
    expect(first.rooms).toEqual([]);
    expect(first.nextToken).toEqual(expect.any(String));

    const seen: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await listing.listOpen(query, token, 2);
      expect(page.rooms.length).toBeLessThanOrEqual(2);
      seen.push(...page.rooms.map((r) => r.roomId));
      token = page.nextToken;
      pages++;
    } while (token && pages < 10);
    expect(seen).toEqual([rooms[1]!.roomId, rooms[3]!.roomId, rooms[4]!.roomId]);
  });

  it.each([
    ['not a token', 'garbage'],
    ['a token of another listing', 'other'],
  ])('refuses %s with 400 naming query.nextToken', async (_name, kind) => {
    const { listing, seed } = subject();
    const query = listingOf();
    const other = listingOf();
    await seed([aRoom({ ...other, createdAt: at(1) }), aRoom({ ...other, createdAt: at(2) })]);
    const token = kind === 'other' ? (await listing.listOpen(other, undefined, 1)).nextToken : kind;
    expect(token).toEqual(expect.any(String));
    const error = await listing.listOpen(query, token, 10).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RequestInvalidError);
    expect(error).toMatchObject({
      code: 'BAD_REQUEST',
      details: { fields: [expect.objectContaining({ field: 'query.nextToken' })] },
    });
  });
}
