import { Fanout, type RoomRecord } from '../../../../core/live/fanout';
import type { ConnectionSender } from '../../../../core/live/connection-sender';
import type { ServerFrame } from '../../../../core/live/messages';
import { constantsOf } from '../../../../core/rooms/session-model';
import { Rooms } from '../../../../core/rooms/rooms';
import { roomRecordOf } from '../../../../lambdas/stream/room-taps';
import { aRoom } from '../../../helpers/factories';
import { InMemoryLiveSubscriptions } from '../../../helpers/fakes/live-subscriptions';
import { MemoryRoomItems } from '../../../helpers/fakes/rooms';

const t0 = Date.parse('2026-01-01T00:00:00.000Z');

/** Sockets that record what they were sent; `gone` ones answer as a closed connection does. */
class RecordingSender implements ConnectionSender {
  readonly frames = new Map<string, ServerFrame[]>();
  readonly gone = new Set<string>();
  async send(connectionId: string, frame: ServerFrame): Promise<'sent' | 'gone'> {
    if (this.gone.has(connectionId)) return 'gone';
    this.frames.set(connectionId, [...(this.frames.get(connectionId) ?? []), frame]);
    return 'sent';
  }
  of(connectionId: string): ServerFrame[] {
    return this.frames.get(connectionId) ?? [];
  }
}

/** A room written through the real store, its item's every state handed to the fanout as the stream would. */
async function setUp() {
  let now = t0;
  const clock = () => new Date(now);
  const items = new MemoryRoomItems();
  const rooms = new Rooms(items);
  const made = aRoom({ state: 'ready', players: 0, readyAt: new Date(t0).toISOString() });
  const room = { ...made, constants: constantsOf(made) };
  await rooms.createWithMember(room);
  for (const account of ['alice', 'bob']) {
    const claim = { members: [{ account, keyHash: `${account}-key`, member: { s: 2, t: t0 } }] };
    await rooms.claim(room.roomId, claim, t0);
  }
  const subscriptions = new InMemoryLiveSubscriptions(clock);
  const sender = new RecordingSender();
  const fanout = new Fanout({ subscriptions, sender, now: clock });
  const subscribe = async (
    connectionId: string,
    account: string,
    options: { minTapIntervalMs?: number; admin?: boolean } = {},
  ) => {
    await subscriptions.connect({ connectionId, account, admin: options.admin ?? false }, clock());
    const connection = (await subscriptions.connection(connectionId))!;
    const since = Number((await items.get(room.roomId))!.changeNumber);
    await subscriptions.subscribe(
      connection,
      room.roomId,
      { since, minTapIntervalMs: options.minTapIntervalMs ?? 0 },
      clock(),
    );
  };
  const image = async (): Promise<RoomRecord> => ({
    kind: 'image',
    roomId: room.roomId,
    item: (await items.get(room.roomId))!,
  });
  const setProperties = (value: string) =>
    rooms.writeSession(room.roomId, { change: { set: [[['properties'], { custom: { value } }]] }, now: clock() });
  return {
    room,
    rooms,
    fanout,
    sender,
    subscriptions,
    subscribe,
    image,
    setProperties,
    advance: (ms: number) => (now += ms),
    now: clock,
  };
}

afterEach(() => {
  jest.useRealTimers();
});

describe('the fanout', () => {
  it('taps every subscriber once per change number, in order, naming the kinds changed since its last tap', async () => {
    const s = await setUp();
    await s.subscribe('c-alice', 'alice');
    await s.subscribe('c-bob', 'bob');
    const reads = jest.spyOn(s.subscriptions, 'subscribersOf');
    await s.setProperties('one');
    const first = await s.image();
    await s.fanout.handle(first);
    await s.fanout.handle(first);
    await s.rooms.recordHeartbeat(s.room.roomId, s.now());
    await s.fanout.handle(await s.image());
    await s.rooms.recordPlacement(s.room.roomId, { taskId: 't', host: '203.0.113.7', ports: [7777] }, s.now());
    await s.fanout.handle(await s.image());

    const n = Number(first.kind === 'image' && first.item.changeNumber);
    const taps = [
      { type: 'tap', roomId: s.room.roomId, changeNumber: n, changes: ['properties'] },
      { type: 'tap', roomId: s.room.roomId, changeNumber: n + 1, changes: ['servers'] },
    ];
    expect(s.sender.of('c-alice')).toEqual(taps);
    expect(s.sender.of('c-bob')).toEqual(taps);
    // A record seen again, and a quiet write's (no new change number), cost no read of the subscribers.
    expect(reads).toHaveBeenCalledTimes(2);
  });

  it('holds the changes within a subscription’s interval and sends them as one tap when it ends', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const s = await setUp();
    await s.subscribe('c-slow', 'alice', { minTapIntervalMs: 1_000 });
    await s.subscribe('c-fast', 'bob');
    await s.setProperties('one');
    await s.fanout.handle(await s.image());
    s.advance(100);
    await s.rooms.recordPlacement(s.room.roomId, { taskId: 't', host: '203.0.113.7', ports: [7777] }, s.now());
    await s.fanout.handle(await s.image());
    await s.rooms.leaveAsPlayer(s.room.roomId, 'bob', s.now());
    const last = await s.image();
    await s.fanout.handle(last);
    expect(s.sender.of('c-slow')).toHaveLength(1);

    s.advance(900);
    await jest.advanceTimersByTimeAsync(900);
    const lastNumber = Number(last.kind === 'image' && last.item.changeNumber);
    expect(s.sender.of('c-slow')).toEqual([
      { type: 'tap', roomId: s.room.roomId, changeNumber: lastNumber - 2, changes: ['properties'] },
      { type: 'tap', roomId: s.room.roomId, changeNumber: lastNumber, changes: ['members', 'servers'] },
    ]);
  });

  it('sends what it holds at once when told to settle before its interval ends', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const s = await setUp();
    await s.subscribe('c-slow', 'alice', { minTapIntervalMs: 60_000 });
    await s.setProperties('one');
    await s.fanout.handle(await s.image());
    await s.setProperties('two');
    await s.fanout.handle(await s.image());
    const settled = s.fanout.settle(500);
    await jest.advanceTimersByTimeAsync(500);
    await settled;
    expect(s.sender.of('c-slow').map((f) => f.type === 'tap' && f.changeNumber)).toEqual([
      s.room.changeNumber + 3,
      s.room.changeNumber + 4,
    ]);
  });

  it('ends the subscription of a member that was removed, but not an admin’s', async () => {
    const s = await setUp();
    await s.subscribe('c-bob', 'bob');
    await s.subscribe('c-admin', 'bob', { admin: true });
    await s.rooms.leaveAsPlayer(s.room.roomId, 'bob', s.now());
    const record = await s.image();
    await s.fanout.handle(record);

    const changeNumber = Number(record.kind === 'image' && record.item.changeNumber);
    expect(s.sender.of('c-bob')).toEqual([{ type: 'ended', roomId: s.room.roomId, reason: 'removed', changeNumber }]);
    expect(s.sender.of('c-admin')).toEqual([
      { type: 'tap', roomId: s.room.roomId, changeNumber, changes: ['members'] },
    ]);
    expect((await s.subscriptions.subscribersOf(s.room.roomId)).map((sub) => sub.connectionId)).toEqual(['c-admin']);
  });

  it.each([
    ['failed', 'failed'],
    ['closed', 'closed'],
    ['ended for its lost host', 'host-lost'],
    ['deleted', 'gone'],
  ] as const)('ends every subscription of a room %s with reason %s', async (how, reason) => {
    const s = await setUp();
    await s.subscribe('c-alice', 'alice');
    await s.subscribe('c-bob', 'bob', { minTapIntervalMs: 60_000 });
    if (how === 'failed') await s.rooms.markFailed(s.room.roomId, 'crashed', s.now());
    if (how === 'closed') await s.rooms.markClosed(s.room.roomId, s.now());
    if (how === 'ended for its lost host') {
      const change = { set: [[['state'], 'closed'] as const, [['failureReason'], 'host-lost'] as const] };
      await s.rooms.writeSession(s.room.roomId, { change, now: s.now(), ends: true });
    }
    const record: RoomRecord = how === 'deleted' ? { kind: 'removed', roomId: s.room.roomId } : await s.image();
    await s.fanout.handle(record);

    for (const connectionId of ['c-alice', 'c-bob']) {
      expect(s.sender.of(connectionId)).toEqual([expect.objectContaining({ type: 'ended', reason })]);
    }
    await expect(s.subscriptions.subscribersOf(s.room.roomId)).resolves.toEqual([]);
  });

  it('forgets a connection that is gone, with every subscription it had', async () => {
    const s = await setUp();
    await s.subscribe('c-alice', 'alice');
    s.sender.gone.add('c-alice');
    await s.setProperties('one');
    await s.fanout.handle(await s.image());
    await expect(s.subscriptions.connection('c-alice')).resolves.toBeUndefined();
    await expect(s.subscriptions.subscribersOf(s.room.roomId)).resolves.toEqual([]);
  });
});

describe('the stream records the taps read', () => {
  const keys = (sk: string) => ({ pk: { S: 'ROOM#r-1' }, sk: { S: sk } });

  it('reads a room item’s new image and its removal, and nothing else of the table', () => {
    const image = { pk: { S: 'ROOM#r-1' }, changeNumber: { N: '3' }, cn: { M: { members: { N: '3' } } } };
    expect(roomRecordOf({ eventName: 'MODIFY', dynamodb: { Keys: keys('ROOM'), NewImage: image } })).toEqual({
      kind: 'image',
      roomId: 'r-1',
      item: { pk: 'ROOM#r-1', changeNumber: 3, cn: { members: 3 } },
    });
    expect(roomRecordOf({ eventName: 'REMOVE', dynamodb: { Keys: keys('ROOM') } })).toEqual({
      kind: 'removed',
      roomId: 'r-1',
    });
    expect(roomRecordOf({ eventName: 'INSERT', dynamodb: { Keys: keys('SUB#c-1'), NewImage: image } })).toBeUndefined();
    expect(roomRecordOf({ eventName: 'MODIFY', dynamodb: {} })).toBeUndefined();
  });
});
