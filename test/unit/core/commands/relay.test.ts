import type { PlatformCommandMessage } from '../../../../core/commands/delivery';
import {
  CommandNotAllowedError,
  CommandNotFoundError,
  NotRoomOwnerError,
  RoomNotReadyError,
} from '../../../../core/commands/errors';
import type { RoomMessages } from '../../../../core/commands/message-store';
import type { CommandOutcome, CommandRecord, RoomMessage } from '../../../../core/commands/model';
import { readCommand, readMessages, sendCommand, type CommandRelayDependencies } from '../../../../core/commands/relay';
import type { Commands } from '../../../../core/commands/store';
import type { GameServerConfiguration } from '../../../../core/gameservers/configuration';
import { GameConfigurationNotFoundError } from '../../../../core/gameservers/errors';
import { ManualClock } from '../../../../core/infra/clock';
import { RoomNotFoundError } from '../../../../core/rooms/errors';
import type { Room } from '../../../../core/rooms/model';
import { aRoom } from '../../../helpers/factories';

/** Command records in memory, with the store's conditions. */
class MemoryCommands implements Commands {
  readonly records = new Map<string, CommandRecord>();
  async create(record: CommandRecord) {
    this.records.set(`${record.roomId}/${record.commandId}`, record);
  }
  async find(roomId: string, commandId: string) {
    return this.records.get(`${roomId}/${commandId}`);
  }
  async recordOutcome(roomId: string, commandId: string, outcome: CommandOutcome, now: Date) {
    const record = this.records.get(`${roomId}/${commandId}`);
    if (!record || record.state !== 'sent' || Date.parse(record.answerBy) <= now.getTime()) return false;
    this.records.set(`${roomId}/${commandId}`, { ...record, ...outcome, answeredAt: now.toISOString() });
    return true;
  }
}

function setup(room: Room | undefined, options: { configurationCommands?: string[] } = {}) {
  const clock = new ManualClock();
  const commands = new MemoryCommands();
  const delivered: Array<[string, PlatformCommandMessage]> = [];
  let deliver: CommandRelayDependencies['deliver'] = async (roomId, command) => {
    delivered.push([roomId, command]);
    return 'delivered';
  };
  const deps: CommandRelayDependencies = {
    rooms: { find: async (roomId) => (room?.roomId === roomId ? room : undefined) },
    configurations: {
      get: async (gameId, version) => {
        if (!options.configurationCommands) throw new GameConfigurationNotFoundError(gameId, version);
        return { commands: options.configurationCommands } as unknown as GameServerConfiguration;
      },
    },
    commands,
    deliver: (roomId, command, epoch) => deliver(roomId, command, epoch),
    now: () => clock.now(),
    sleep: (ms) => clock.sleep(ms),
    newId: () => 'c1',
    answerWaitMs: 1_000,
  };
  return {
    clock,
    commands,
    delivered,
    deps,
    setDeliver: (next: CommandRelayDependencies['deliver']) => (deliver = next),
  };
}

/** Lets pending promise callbacks run. */
const flush = async () => {
  for (let i = 0; i < 20; i++) await Promise.resolve();
};

const owner = { account: 'alice', command: 'say', args: { text: 'hi' } };

describe('sendCommand', () => {
  it('records the command, delivers it sealed for the room, and answers once the game did', async () => {
    const room = aRoom({ commands: ['say'] });
    const { deps, delivered, commands, clock } = setup(room);
    const sent = sendCommand({ roomId: room.roomId, ...owner }, deps);
    await flush();
    expect(delivered).toEqual([
      [room.roomId, { type: 'command', commandId: 'c1', method: 'say', params: { text: 'hi' } }],
    ]);
    expect(await commands.find(room.roomId, 'c1')).toMatchObject({ state: 'sent', account: 'alice', command: 'say' });
    await commands.recordOutcome(room.roomId, 'c1', { state: 'answered', result: { delivered: 1 } }, clock.now());
    clock.advance(25);
    expect(await sent).toEqual({ commandId: 'c1', command: 'say', state: 'answered', result: { delivered: 1 } });
  });

  it("answers the game's error as failed", async () => {
    const room = aRoom({ commands: ['say'] });
    const { deps, commands, clock } = setup(room);
    const sent = sendCommand({ roomId: room.roomId, ...owner }, deps);
    await flush();
    await commands.recordOutcome(
      room.roomId,
      'c1',
      { state: 'failed', error: { code: -32602, message: 'no' } },
      clock.now(),
    );
    clock.advance(25);
    expect(await sent).toMatchObject({ state: 'failed', error: { code: -32602, message: 'no' } });
  });

  it('answers sent once the wait is over without an answer', async () => {
    const room = aRoom({ commands: ['say'] });
    const { deps, clock } = setup(room);
    const sent = sendCommand({ roomId: room.roomId, ...owner }, deps);
    for (let i = 0; i < 40 && clock.now().getTime() - Date.parse('2026-01-01T00:00:00Z') < 1_000; i++) {
      await flush();
      clock.advance(100);
    }
    expect(await sent).toEqual({ commandId: 'c1', command: 'say', state: 'sent' });
  });

  it('refuses a room that does not exist (404) and a caller who is not its owner (403)', async () => {
    const room = aRoom({ commands: ['say'] });
    const { deps, delivered } = setup(room);
    await expect(sendCommand({ roomId: 'nope', ...owner }, deps)).rejects.toBeInstanceOf(RoomNotFoundError);
    await expect(sendCommand({ roomId: room.roomId, ...owner, account: 'mallory' }, deps)).rejects.toBeInstanceOf(
      NotRoomOwnerError,
    );
    expect(delivered).toEqual([]);
  });

  it('refuses a command outside the whitelist with a sentence naming the allowed ones', async () => {
    const room = aRoom({ commands: ['say', 'kick'] });
    const { deps, delivered } = setup(room);
    const refused = sendCommand({ roomId: room.roomId, ...owner, command: 'shutdown' }, deps);
    await expect(refused).rejects.toBeInstanceOf(CommandNotAllowedError);
    await expect(refused).rejects.toThrow(
      "Command 'shutdown' is not allowed: this room's configuration allows 'say', 'kick'.",
    );
    expect(delivered).toEqual([]);
  });

  it("uses the configuration's whitelist for a room made before rooms carried theirs, and none without one", async () => {
    const room = aRoom();
    const withConfiguration = setup(room, { configurationCommands: ['say'] });
    const sent = sendCommand({ roomId: room.roomId, ...owner }, withConfiguration.deps);
    await flush();
    expect(withConfiguration.delivered).toHaveLength(1);
    await withConfiguration.commands.recordOutcome(
      room.roomId,
      'c1',
      { state: 'answered', result: null },
      withConfiguration.clock.now(),
    );
    withConfiguration.clock.advance(25);
    await sent;
    await expect(sendCommand({ roomId: room.roomId, ...owner }, setup(room).deps)).rejects.toThrow(
      'allows no commands',
    );
  });

  it.each([
    ['spawning', aRoom({ commands: ['say'], state: 'spawning' }), 'still starting'],
    ['failed', aRoom({ commands: ['say'], state: 'failed' }), 'the room is failed'],
    ['closed', aRoom({ commands: ['say'], state: 'closed' }), 'the room is closed'],
    ['peer-hosted', aRoom({ commands: ['say'], hosting: 'peerHosted' }), 'peer-hosted'],
  ])('refuses a %s room with 409 ROOM_NOT_READY', async (_state, room, why) => {
    const { deps, delivered } = setup(room);
    const refused = sendCommand({ roomId: room.roomId, ...owner }, deps);
    await expect(refused).rejects.toBeInstanceOf(RoomNotReadyError);
    await expect(refused).rejects.toThrow(why);
    expect(delivered).toEqual([]);
  });

  it("delivers to the sidecar of the room's current server: a replacement's epoch, else the first's", async () => {
    const replaced = aRoom({ commands: ['say'], host: { epoch: 3, seenAt: 0 } });
    const first = aRoom({ commands: ['say'] });
    const epochs: Array<[string, number]> = [];
    for (const room of [replaced, first]) {
      const { deps, setDeliver } = setup(room);
      setDeliver(async (roomId, _command, epoch) => (epochs.push([roomId, epoch]), 'gone'));
      await expect(sendCommand({ roomId: room.roomId, ...owner }, deps)).rejects.toThrow('its game server has ended');
    }
    expect(epochs).toEqual([
      [replaced.roomId, 3],
      [first.roomId, 1],
    ]);
  });

  it('fails the record and answers 409 when the sidecar is gone (no reply queue)', async () => {
    const room = aRoom({ commands: ['say'] });
    const { deps, setDeliver, commands } = setup(room);
    setDeliver(async () => 'gone');
    await expect(sendCommand({ roomId: room.roomId, ...owner }, deps)).rejects.toThrow('its game server has ended');
    expect(await commands.find(room.roomId, 'c1')).toMatchObject({ state: 'failed' });
  });
});

describe('readCommand', () => {
  it('shows a command to its sender only, and 404 for an unknown one', async () => {
    const room = aRoom({ commands: ['say'] });
    const { deps, clock } = setup(room);
    const sent = sendCommand({ roomId: room.roomId, ...owner }, deps);
    await flush();
    expect(await readCommand({ roomId: room.roomId, commandId: 'c1', account: 'alice' }, deps)).toMatchObject({
      state: 'sent',
    });
    await expect(
      readCommand({ roomId: room.roomId, commandId: 'c1', account: 'mallory' }, deps),
    ).rejects.toBeInstanceOf(NotRoomOwnerError);
    await expect(readCommand({ roomId: room.roomId, commandId: 'c2', account: 'alice' }, deps)).rejects.toBeInstanceOf(
      CommandNotFoundError,
    );
    clock.advance(100_000);
    await sent;
  });
});

describe('readMessages', () => {
  function messagesSetup(room: Room) {
    const clock = new ManualClock();
    const log: RoomMessage[] = [];
    const messages: RoomMessages = {
      append: async () => 0,
      after: async (_roomId, after) => log.filter((m) => m.seq > after),
    };
    const deps = { rooms: { find: async (id: string) => (id === room.roomId ? room : undefined) }, messages, clock };
    const add = (data: Record<string, unknown>) =>
      log.push({ seq: log.length + 1, data, at: clock.now().toISOString() });
    return { deps: { ...deps, now: () => clock.now(), sleep: (ms: number) => clock.sleep(ms) }, clock, add };
  }

  it('answers at once with the messages after `after`, and `next` to read on', async () => {
    const room = aRoom();
    const { deps, add } = messagesSetup(room);
    add({ n: 1 });
    add({ n: 2 });
    expect(await readMessages({ roomId: room.roomId, account: 'alice', after: 1, waitS: 20 }, deps)).toEqual({
      messages: [{ seq: 2, data: { n: 2 }, at: expect.any(String) }],
      next: 2,
    });
  });

  it('waits for a message and answers as soon as one is there', async () => {
    const room = aRoom();
    const { deps, add, clock } = messagesSetup(room);
    const read = readMessages({ roomId: room.roomId, account: 'alice', after: 0, waitS: 20 }, deps);
    await flush();
    clock.advance(250);
    await flush();
    add({ hello: true });
    clock.advance(250);
    expect(await read).toMatchObject({ messages: [{ seq: 1, data: { hello: true } }], next: 1 });
    expect(clock.now().getTime() - Date.parse('2026-01-01T00:00:00Z')).toBe(500);
  });

  it('answers an empty list after waitS, with next = after', async () => {
    const room = aRoom();
    const { deps, clock } = messagesSetup(room);
    const read = readMessages({ roomId: room.roomId, account: 'alice', after: 7, waitS: 1 }, deps);
    for (let i = 0; i < 10; i++) {
      await flush();
      clock.advance(250);
    }
    expect(await read).toEqual({ messages: [], next: 7 });
  });

  it('is for the owner only (403), and 404 for an unknown room', async () => {
    const room = aRoom();
    const { deps } = messagesSetup(room);
    await expect(
      readMessages({ roomId: room.roomId, account: 'bob', after: 0, waitS: 0 }, deps),
    ).rejects.toBeInstanceOf(NotRoomOwnerError);
    await expect(readMessages({ roomId: 'x', account: 'alice', after: 0, waitS: 0 }, deps)).rejects.toBeInstanceOf(
      RoomNotFoundError,
    );
  });
});
