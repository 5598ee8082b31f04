import { handleControllerRequest } from '../../../../core/controller-events/handle';
import type { ControllerEventDependencies } from '../../../../core/controller-events/ports';
import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { deploymentOf } from '../../../../core/gameservers/deployment';
import { GameConfigurationNotFoundError } from '../../../../core/gameservers/errors';
import type { ControllerReply, ControllerRequest } from '../../../../core/protocol/controller-messages';
import { rpcErrorCodes } from '../../../../core/protocol/jsonrpc';
import type { StoredMember } from '../../../../core/rooms/document';
import { hashRegistrationKey } from '../../../../core/rooms/registration-keys';
import { storedKeyHash } from '../../../../core/rooms/document';
import type { Room } from '../../../../core/rooms/model';
import { roomItem } from '../../../../core/rooms/room-item';
import { exists } from '../../../../core/rooms/room-expression';
import { Rooms } from '../../../../core/rooms/rooms';
import { setHashOf, type Protocol } from '../../../../core/versions/protocol';
import { aRoom } from '../../../helpers/factories';
import { MemoryRoomItems } from '../../../helpers/fakes/rooms';
import { InMemoryProtocolComponents } from '../../../helpers/fakes/protocol-components';

/**
 * The consumer's side of a server's build and of the Anthill runtimes' two methods, on the
 * in-memory room store: `inited` keeps the build, `update_settings` rewrites the settings,
 * `check_deployment` compares the room's deployment with its configuration's, and `joined`
 * refuses a player of another build.
 */
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const components = { 'Game::Chat': '0123456789abcdef', 'Game::Move': 'fedcba9876543210' };
const serverBuild = { hash: setHashOf(components), components, builtAt: '2026-01-01T00:00:00Z' };
const otherBuild = '1111111111111111';
const configuration = {
  gameId: 'sample',
  version: '1.0.0',
  binary: '/game/server',
  args: [],
  env: {},
  ports: 1,
  protocol: { ...serverBuild },
} as unknown as GameServerConfiguration;

function setup(options: { configuration?: GameServerConfiguration; remember?: () => Promise<void> } = {}) {
  const items = new MemoryRoomItems();
  const rooms = new Rooms(items);
  const replies: ControllerReply[] = [];
  const notices: { roomId: string; message: unknown; epoch: number }[] = [];
  const warnings: unknown[] = [];
  const stored = new InMemoryProtocolComponents();
  let current = options.configuration ?? configuration;
  let deleted = false;
  const deps = {
    rooms,
    now: () => new Date(t0 + 1_000),
    reply: async (_to: string, reply: ControllerReply) => void replies.push(reply),
    locateServer: async () => '127.0.0.1',
    signToken: async () => 'player-token',
    protocolComponents: { remember: options.remember ?? ((p: Protocol) => stored.remember(p)) },
    configurations: {
      get: async (gameId: string, version: string) => {
        if (deleted) throw new GameConfigurationNotFoundError(gameId, version);
        return current;
      },
    },
    deliver: async (roomId: string, message: unknown, epoch: number) => {
      notices.push({ roomId, message, epoch });
      return 'delivered' as const;
    },
    log: { info: () => undefined, warn: (...args: unknown[]) => void warnings.push(args) },
  } as unknown as ControllerEventDependencies;
  let n = 0;
  const rpc = async (roomId: string, method: string, params: unknown, epoch?: number) => {
    await handleControllerRequest(
      {
        type: 'rpc',
        roomId,
        sentAt: new Date(t0).toISOString(),
        method,
        ...(params === undefined ? {} : { params }),
        ...(epoch === undefined ? {} : { epoch }),
        correlationId: `c-${++n}`,
        replyTo: 'reply-queue',
      } as ControllerRequest,
      deps,
    );
    return replies.pop();
  };
  const put = (room: Room, members: Record<string, StoredMember> = {}) => items.putNew(roomItem(room, members));
  return {
    rooms,
    rpc,
    put,
    stored,
    notices,
    warnings,
    change: (next: GameServerConfiguration) => (current = next),
    remove: () => (deleted = true),
  };
}

const spawning = () =>
  aRoom({
    state: 'spawning',
    spawnDeadline: new Date(t0 + 30_000).toISOString(),
    placement: { taskId: 'task-1', host: '127.0.0.1', ports: [38000] },
  });

describe("inited keeps the server's build", () => {
  it('stores its hash and builtAt on the room and its component map beside it', async () => {
    const { rooms, rpc, put, stored } = setup();
    const room = spawning();
    await put(room);
    expect(await rpc(room.roomId, 'inited', { settings: { map: 'dunes' }, protocol: serverBuild })).toMatchObject({
      result: { status: 'OK' },
    });
    expect(await rooms.get(room.roomId)).toMatchObject({
      state: 'ready',
      settings: { map: 'dunes' },
      protocol: { h: serverBuild.hash, b: serverBuild.builtAt },
    });
    expect(await stored.componentsOf(serverBuild.hash)).toEqual(components);
  });

  it('makes the room ready even when the component map cannot be kept, and says so in the log', async () => {
    const { rooms, rpc, put, warnings } = setup({ remember: () => Promise.reject(new Error('throttled')) });
    const room = spawning();
    await put(room);
    expect(await rpc(room.roomId, 'inited', { protocol: serverBuild })).toMatchObject({ result: { status: 'OK' } });
    expect((await rooms.get(room.roomId)).protocol).toEqual({ h: serverBuild.hash, b: serverBuild.builtAt });
    expect(warnings).toEqual([[expect.stringContaining('component map'), expect.anything()]]);
  });

  it('refuses a component map that is not its hash, naming the member', async () => {
    const { rooms, rpc, put } = setup();
    const room = spawning();
    await put(room);
    const reply = await rpc(room.roomId, 'inited', { protocol: { ...serverBuild, hash: otherBuild } });
    expect(reply).toMatchObject({ error: { code: rpcErrorCodes.invalidParams } });
    expect(JSON.stringify(reply)).toContain('protocol.hash');
    expect((await rooms.get(room.roomId)).state).toBe('spawning');
  });
});

describe('update_settings', () => {
  it("replaces the room's settings as a change (the change number moves)", async () => {
    const { rooms, rpc, put } = setup();
    const room = aRoom({ settings: { map: 'harbor', mode: 'duel' } });
    await put(room);
    expect(await rpc(room.roomId, 'update_settings', { settings: { map: 'dunes', mode: 'ffa' } })).toMatchObject({
      result: { status: 'OK' },
    });
    const after = await rooms.get(room.roomId);
    expect(after.settings).toEqual({ map: 'dunes', mode: 'ffa' });
    expect(after.changeNumber).toBe(room.changeNumber + 1);
  });

  it('is refused, writing nothing, for a replaced server and for an ended room', async () => {
    const { rooms, rpc, put } = setup();
    const replaced = aRoom({ host: { epoch: 2, seenAt: t0 } });
    const closed = aRoom({ state: 'closed' });
    await put(replaced);
    await put(closed);
    const fromOld = await rpc(replaced.roomId, 'update_settings', { settings: { map: 'x' } }, 1);
    expect(fromOld).toMatchObject({ error: { code: rpcErrorCodes.roomClosed } });
    expect(await rpc(closed.roomId, 'update_settings', { settings: { map: 'x' } })).toMatchObject({
      error: { code: rpcErrorCodes.roomClosed },
    });
    expect((await rooms.get(replaced.roomId)).settings).toEqual(replaced.settings);
    expect((await rooms.get(closed.roomId)).settings).toEqual(closed.settings);
  });

  it('is fenced by the epoch in its own write, not only by the read before it', async () => {
    const items = new MemoryRoomItems();
    const store = new Rooms(items);
    const room = aRoom({ host: { epoch: 2, seenAt: t0 } });
    await items.putNew(roomItem(room, {}));
    expect(await store.updateSettings(room.roomId, { map: 'x' }, { epoch: 1, now: new Date(t0) })).toBe('replaced');
    expect(await store.updateSettings(room.roomId, { map: 'y' }, { epoch: 2, now: new Date(t0) })).toBe('updated');
    expect(await store.updateSettings('no-such-room', { map: 'y' }, { epoch: 1, now: new Date(t0) })).toBe('not-live');
    expect((await store.get(room.roomId)).settings).toEqual({ map: 'y' });
  });

  it("refuses, for inited and update_settings, settings under 4 KiB that a replacement server's launch could not carry", async () => {
    const { rooms, rpc, put } = setup();
    const room = aRoom({ settings: { map: 'harbor' } });
    const starting = spawning();
    await put(room);
    await put(starting);
    // 2,599 bytes of JSON, 2,605 characters encoded again: within 4 KiB, past the 2,560 the
    // task's overrides give room settings.
    const settings = { text: 'x'.repeat(2_588) };
    for (const reply of [
      await rpc(room.roomId, 'update_settings', { settings }),
      await rpc(starting.roomId, 'inited', { settings }),
    ]) {
      expect(reply).toMatchObject({
        error: {
          code: rpcErrorCodes.invalidParams,
          message: expect.stringContaining('settings: must take at most 2560'),
        },
      });
    }
    expect((await rooms.get(room.roomId)).settings).toEqual({ map: 'harbor' });
    expect((await rooms.get(starting.roomId)).state).toBe('spawning');
  });

  it('refuses settings over 4 KiB with -32602', async () => {
    const { rpc, put } = setup();
    const room = aRoom();
    await put(room);
    expect(await rpc(room.roomId, 'update_settings', { settings: { text: 'x'.repeat(4096) } })).toMatchObject({
      error: { code: rpcErrorCodes.invalidParams },
    });
  });
});

describe('check_deployment', () => {
  const deployment = deploymentOf(configuration);

  it('answers current with the declared build (no components), with params {} or none at all', async () => {
    const { rpc, put } = setup();
    const room = aRoom({ deployment });
    await put(room);
    const declared = { current: true, protocol: { hash: serverBuild.hash, builtAt: serverBuild.builtAt } };
    expect(await rpc(room.roomId, 'check_deployment', {})).toMatchObject({ result: declared });
    expect(await rpc(room.roomId, 'check_deployment', undefined)).toMatchObject({ result: declared });
  });

  it('answers not current once the configuration starts another binary, and once it is deleted', async () => {
    const { rpc, put, change, remove } = setup();
    const room = aRoom({ deployment });
    await put(room);
    change({ ...configuration, binary: '/game/server-2' } as GameServerConfiguration);
    expect(await rpc(room.roomId, 'check_deployment', {})).toMatchObject({ result: { current: false } });
    remove();
    expect(await rpc(room.roomId, 'check_deployment', {})).toEqual({
      type: 'reply',
      correlationId: expect.any(String),
      result: { current: false },
    });
  });

  it('judges a room that recorded no deployment by whether the configuration was written since the room was made', async () => {
    const { rpc, put, change } = setup();
    const room = aRoom({ createdAt: new Date(t0).toISOString() });
    await put(room);
    change({ ...configuration, updatedAt: new Date(t0 - 60_000).toISOString() } as GameServerConfiguration);
    expect(await rpc(room.roomId, 'check_deployment', {})).toMatchObject({ result: { current: true } });
    change({ ...configuration, updatedAt: room.createdAt } as GameServerConfiguration);
    expect(await rpc(room.roomId, 'check_deployment', {})).toMatchObject({ result: { current: true } });
    change({ ...configuration, updatedAt: new Date(t0 + 1).toISOString() } as GameServerConfiguration);
    expect(await rpc(room.roomId, 'check_deployment', {})).toMatchObject({ result: { current: false } });
  });
});

describe('joined refuses a player of another build', () => {
  const key = 'key-of-bob';
  const reservation = (v?: string): StoredMember => ({
    s: 0,
    t: t0,
    k: storedKeyHash(hashRegistrationKey(key)),
    ...(v === undefined ? {} : { v }),
  });
  const ready = (overrides: Partial<Room> = {}) =>
    aRoom({ players: 1, protocol: { h: serverBuild.hash }, host: { epoch: 1, seenAt: t0 }, ...overrides });

  it('answers -32001 naming both hashes, frees the slot, and tells the game', async () => {
    const { rooms, rpc, put, notices } = setup();
    const room = ready({ players: 2 });
    await put(room, { bob: reservation(otherBuild), carol: reservation(serverBuild.hash) });
    const reply = await rpc(room.roomId, 'joined', { keyHash: hashRegistrationKey(key) });
    expect(reply).toMatchObject({ error: { code: rpcErrorCodes.keyRejected } });
    const message = (reply as { error: { message: string } }).error.message;
    expect(message).toContain('protocol mismatch');
    expect(message).toContain(otherBuild);
    expect(message).toContain(serverBuild.hash);
    const after = await rooms.read(room.roomId);
    expect(after?.doc.members).not.toHaveProperty('bob');
    expect(after?.doc.members.carol).toEqual(reservation(serverBuild.hash));
    expect(after?.room.players).toBe(1);
    expect(notices).toEqual([
      {
        roomId: room.roomId,
        epoch: 1,
        message: {
          type: 'notice',
          method: 'protocol_mismatch',
          params: {
            account: 'bob',
            client: { hash: otherBuild },
            server: { hash: serverBuild.hash },
            added: [],
            removed: [],
            changed: [],
            newer: 'unknown',
          },
        },
      },
    ]);
  });

  it("refuses in the confirming write itself: a server's build reported after the read still keeps the player out", async () => {
    const items = new MemoryRoomItems();
    const store = new Rooms(items);
    const room = ready({ protocol: undefined });
    await items.putNew(roomItem(room, { bob: reservation(otherBuild) }));
    const read = await store.read(room.roomId);
    await items.update(room.roomId, exists('pk'), {
      set: [[['protocol'], { h: serverBuild.hash }]],
    });
    if (!read) throw new Error('the room was not stored');
    const outcome = await store.confirm(read, hashRegistrationKey(key), 'request-1', new Date(t0 + 1_000));
    expect(outcome).toEqual({ state: 'Mismatch', account: 'bob', client: otherBuild, server: { h: serverBuild.hash } });
    const after = await store.read(room.roomId);
    expect(after?.doc.members).toEqual({});
    expect(after?.room.players).toBe(0);
  });

  it("frees only the refused key's slot: not one re-keyed since the read, never counting players below zero", async () => {
    const items = new MemoryRoomItems();
    const store = new Rooms(items);
    const at = new Date(t0 + 1_000);
    const uncounted = ready({ players: 0 });
    await items.putNew(roomItem(uncounted, { bob: reservation(otherBuild) }));
    await store.confirm((await store.read(uncounted.roomId))!, hashRegistrationKey(key), 'request-1', at);
    expect((await store.read(uncounted.roomId))?.doc.members.bob).toEqual(reservation(otherBuild));

    const room = ready({ players: 1 });
    await items.putNew(roomItem(room, { bob: reservation(otherBuild) }));
    const stale = (await store.read(room.roomId))!;
    // Bob joined again between the read and the refusal: his new key holds the slot.
    const newKey = storedKeyHash(hashRegistrationKey('key-of-bob-2'));
    await items.update(room.roomId, exists('pk'), { set: [[['members', 'bob', 'k'], newKey]] });
    await store.confirm(stale, hashRegistrationKey(key), 'request-1', at);
    expect((await store.read(room.roomId))?.doc.members.bob).toMatchObject({ k: newKey });
    // The new key refused in turn frees it.
    await store.confirm((await store.read(room.roomId))!, hashRegistrationKey('key-of-bob-2'), 'request-2', at);
    expect(await store.read(room.roomId)).toMatchObject({ room: { players: 0 }, doc: { members: {} } });
  });

  it('confirms the same build, a player without a hash, and any player when the check is off', async () => {
    for (const [room, v] of [
      [ready(), serverBuild.hash],
      [ready(), undefined],
      [ready({ protocolCheck: false }), otherBuild],
      [ready({ protocol: undefined }), otherBuild],
    ] as const) {
      const { rooms, rpc, put, notices } = setup();
      await put(room, { bob: reservation(v) });
      expect(await rpc(room.roomId, 'joined', { keyHash: hashRegistrationKey(key) })).toMatchObject({
        result: { account: 'bob' },
      });
      expect((await rooms.read(room.roomId))?.doc.members.bob).toMatchObject({ s: 2, ...(v ? { v } : {}) });
      expect(notices).toEqual([]);
    }
  });
});
