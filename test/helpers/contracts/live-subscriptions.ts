import { randomUUID } from 'node:crypto';
import { connectionBounds } from '../../../core/live/bounds';
import type { LiveConnection, LiveConnections } from '../../../core/live/subscription-store';

/**
 * The rules every `LiveConnections` keeps, run against the in-memory fake (unit) and the store
 * on DynamoDB Local (integration), so the fake the fanout's unit tests use cannot drift.
 * `make` builds the store on the clock it is given (expiry is judged by it).
 */
export function liveSubscriptionsContract(make: (now: () => Date) => LiveConnections): void {
  let at = Date.parse('2030-01-01T00:00:00Z');
  const clock = () => new Date(at);
  const unique = (what: string) => `${what}-${randomUUID().slice(0, 8)}`;
  const options = { since: 3, minTapIntervalMs: 0 };

  async function connected(store: LiveConnections, account: string, admin = false): Promise<LiveConnection> {
    const connectionId = unique('c');
    expect(await store.connect({ connectionId, account, admin }, clock())).toBe('connected');
    const connection = await store.connection(connectionId);
    if (!connection) throw new Error('the connection was not kept');
    return connection;
  }

  beforeEach(() => {
    at = Date.parse('2030-01-01T00:00:00Z');
  });

  it('holds a connection and lists its subscriptions for the room, with their options', async () => {
    const store = make(clock);
    const room = unique('room');
    const alice = await connected(store, unique('alice'));
    const admin = await connected(store, unique('ops'), true);
    expect(alice).toMatchObject({ admin: false, connectedAt: at, rooms: [] });

    expect(await store.subscribe(alice, room, options, clock())).toBe('subscribed');
    expect(await store.subscribe(admin, room, { since: 4, minTapIntervalMs: 500 }, clock())).toBe('subscribed');

    const subscribers = await store.subscribersOf(room);
    expect(subscribers.sort((a, b) => Number(a.admin) - Number(b.admin))).toEqual([
      { connectionId: alice.connectionId, roomId: room, account: alice.account, admin: false, ...options },
      {
        connectionId: admin.connectionId,
        roomId: room,
        account: admin.account,
        admin: true,
        since: 4,
        minTapIntervalMs: 500,
      },
    ]);
    expect((await store.connection(alice.connectionId))?.rooms).toEqual([room]);
    expect(await store.subscribersOf(unique('other'))).toEqual([]);
  });

  it('refuses a connection beyond the per-account bound, until one closes or outlives the longest life', async () => {
    const store = make(clock);
    const account = unique('alice');
    const held: LiveConnection[] = [];
    for (let i = 0; i < connectionBounds.perAccount; i++) held.push(await connected(store, account));
    const extra = () => store.connect({ connectionId: unique('c'), account, admin: false }, clock());
    expect(await extra()).toBe('too-many-connections');
    expect(await store.connect({ connectionId: unique('c'), account: unique('bob'), admin: false }, clock())).toBe(
      'connected',
    );

    await store.forgetConnection(held[0]!.connectionId);
    expect(await extra()).toBe('connected');
    expect(await extra()).toBe('too-many-connections');

    // Past the longest life every older socket is certainly closed, whatever its $disconnect did.
    at += connectionBounds.maxLifetimeMs + 1;
    expect(await extra()).toBe('connected');
  });

  it('admits exactly the bound of one account connecting at once, however many try', async () => {
    const store = make(clock);
    const account = unique('alice');
    const tries = Array.from({ length: connectionBounds.perAccount + 3 }, () =>
      store.connect({ connectionId: unique('c'), account, admin: false }, clock()),
    );
    const results = await Promise.all(tries);
    expect(results.filter((r) => r === 'connected')).toHaveLength(connectionBounds.perAccount);
  });

  it('bounds the subscriptions of one connection; renewing one it holds is not a new one', async () => {
    const store = make(clock);
    const connection = await connected(store, unique('ops'), true);
    const rooms = Array.from({ length: connectionBounds.subscriptionsPerConnection }, () => unique('room'));
    for (const room of rooms) expect(await store.subscribe(connection, room, options, clock())).toBe('subscribed');

    expect(await store.subscribe(connection, unique('room'), options, clock())).toBe('too-many-subscriptions');
    expect(await store.subscribe(connection, rooms[0]!, { since: 9, minTapIntervalMs: 0 }, clock())).toBe('subscribed');
    expect((await store.subscribersOf(rooms[0]!))[0]?.since).toBe(9);

    await store.endSubscription(rooms[1]!, connection.connectionId);
    expect(await store.subscribersOf(rooms[1]!)).toEqual([]);
    expect(await store.subscribe(connection, unique('room'), options, clock())).toBe('subscribed');
  });

  it('forgets a connection with everything of it, once; a forgotten one cannot subscribe', async () => {
    const store = make(clock);
    const account = unique('alice');
    const room = unique('room');
    const first = await connected(store, account);
    const second = await connected(store, account);
    await store.subscribe(first, room, options, clock());
    await store.subscribe(second, room, options, clock());
    expect(await store.otherSocketsWatch(account, room, first.connectionId)).toBe(true);

    const gone = await store.forgetConnection(second.connectionId);
    expect(gone).toMatchObject({ connectionId: second.connectionId, account, rooms: [room] });
    expect(await store.forgetConnection(second.connectionId)).toBeUndefined();
    expect(await store.connection(second.connectionId)).toBeUndefined();
    expect((await store.subscribersOf(room)).map((s) => s.connectionId)).toEqual([first.connectionId]);
    expect(await store.otherSocketsWatch(account, room, first.connectionId)).toBe(false);
    expect(await store.subscribe(second, room, options, clock())).toBe('no-connection');
  });

  it("lists an account's own sockets: not another's, not a forgotten one, not one past its longest life", async () => {
    const store = make(clock);
    const account = unique('alice');
    const first = await connected(store, account);
    const second = await connected(store, account);
    await connected(store, unique('bob'));
    expect((await store.socketsOf(account)).sort()).toEqual([first.connectionId, second.connectionId].sort());
    await store.forgetConnection(first.connectionId);
    expect(await store.socketsOf(account)).toEqual([second.connectionId]);
    at += connectionBounds.maxLifetimeMs;
    expect(await store.socketsOf(account)).toEqual([]);
    expect(await store.socketsOf(unique('nobody'))).toEqual([]);
  });

  it('lists no subscription of a connection past its longest life', async () => {
    const store = make(clock);
    const room = unique('room');
    const connection = await connected(store, unique('alice'));
    await store.subscribe(connection, room, options, clock());
    at += connectionBounds.maxLifetimeMs + 120_000;
    expect(await store.subscribersOf(room)).toEqual([]);
    expect(await store.connection(connection.connectionId)).toBeUndefined();
  });
}
