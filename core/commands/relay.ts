import { GameConfigurationNotFoundError } from '../gameservers/errors';
import type { GameConfigurations } from '../gameservers/configuration-store';
import { rpcErrorCodes } from '../protocol/jsonrpc';
import { RoomNotFoundError } from '../rooms/errors';
import type { Room } from '../rooms/model';
import { serverEpochOf } from '../rooms/replacement';
import type { RoomStore } from '../rooms/room-store';
import type { CommandDelivery } from './delivery';
import { CommandNotAllowedError, CommandNotFoundError, NotRoomOwnerError, RoomNotReadyError } from './errors';
import type { RoomMessages } from './message-store';
import {
  commandAnswerWaitMs,
  commandPollPauseMs,
  commandView,
  messagePollPauseMs,
  newCommandRecord,
  type CommandView,
  type RoomMessage,
} from './model';
import type { Commands } from './store';

export interface CommandRelayDependencies {
  readonly rooms: Pick<RoomStore, 'find'>;
  /** Rooms made before they carried their whitelist read their configuration's. */
  readonly configurations: Pick<GameConfigurations, 'get'>;
  readonly commands: Commands;
  readonly deliver: CommandDelivery;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
  readonly newId: () => string;
  /** How long the caller is held for the answer. @default commandAnswerWaitMs */
  readonly answerWaitMs?: number;
}

export interface SendCommandInput {
  readonly roomId: string;
  readonly account: string;
  readonly command: string;
  readonly args?: Record<string, unknown>;
}

/**
 * The owner's command to the room's game server:
 *
 *   room? (404) ─ owner? (403) ─ whitelisted? (403) ─ server up? (409 ROOM_NOT_READY)
 *     ─► record `sent` ─► sealed `command` on the sidecar's reply queue ─► read the record
 *        until answered or `answerWaitMs` ─► the view (`sent` when the game has not answered yet)
 *
 * The record exists before the command leaves, so an answer never arrives before it. The
 * sidecar checks the whitelist again: it is the configuration's as the room was started.
 */
export async function sendCommand(input: SendCommandInput, deps: CommandRelayDependencies): Promise<CommandView> {
  const room = await ownedRoom(input.roomId, input.account, deps.rooms);
  const allowed = await allowedCommands(room, deps.configurations);
  if (!allowed.includes(input.command)) throw new CommandNotAllowedError(input.command, allowed);
  const notReady = whyNotReady(room);
  if (notReady) throw new RoomNotReadyError(room.roomId, notReady);

  const record = newCommandRecord(
    {
      roomId: room.roomId,
      commandId: deps.newId(),
      account: input.account,
      command: input.command,
      args: input.args ?? {},
    },
    deps.now(),
  );
  await deps.commands.create(record);
  const delivered = await deps.deliver(
    room.roomId,
    { type: 'command', commandId: record.commandId, method: record.command, params: record.args },
    // The room as just read: a replacement server's sidecar reads the queue of its epoch.
    serverEpochOf(room),
  );
  if (delivered === 'gone') {
    await deps.commands.recordOutcome(
      room.roomId,
      record.commandId,
      { state: 'failed', error: { code: rpcErrorCodes.roomClosed, message: 'The game server has ended.' } },
      deps.now(),
    );
    throw new RoomNotReadyError(room.roomId, 'its game server has ended.');
  }
  return awaitAnswer(room.roomId, record.commandId, deps);
}

/** Reads the record with short pauses until it is no longer `sent`, or the wait is over. */
async function awaitAnswer(roomId: string, commandId: string, deps: CommandRelayDependencies): Promise<CommandView> {
  const deadline = deps.now().getTime() + (deps.answerWaitMs ?? commandAnswerWaitMs);
  for (let attempt = 0; ; attempt++) {
    const record = await deps.commands.find(roomId, commandId);
    if (!record) throw new CommandNotFoundError(roomId, commandId);
    const now = deps.now();
    const view = commandView(record, now);
    const left = deadline - now.getTime();
    if (view.state !== 'sent' || left <= 0) return view;
    await deps.sleep(Math.min(commandPollPauseMs(attempt), left));
  }
}

/** `GET …/commands/{commandId}`: the command as it stands, to its sender only. */
export async function readCommand(
  input: { roomId: string; commandId: string; account: string },
  deps: Pick<CommandRelayDependencies, 'commands' | 'now'>,
): Promise<CommandView> {
  const record = await deps.commands.find(input.roomId, input.commandId);
  if (!record) throw new CommandNotFoundError(input.roomId, input.commandId);
  if (record.account !== input.account) throw new NotRoomOwnerError(input.roomId);
  return commandView(record, deps.now());
}

export interface ReadMessagesDependencies {
  readonly rooms: Pick<RoomStore, 'find'>;
  readonly messages: RoomMessages;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
}

/**
 * `GET …/messages`: the owner's long poll of the room's message log. Answers as soon as a
 * message after `after` is kept, else after `waitS` with none. `next` is what to send as
 * `after` the next time.
 */
export async function readMessages(
  input: { roomId: string; account: string; after: number; waitS: number },
  deps: ReadMessagesDependencies,
): Promise<{ messages: RoomMessage[]; next: number }> {
  await ownedRoom(input.roomId, input.account, deps.rooms);
  const deadline = deps.now().getTime() + input.waitS * 1000;
  for (;;) {
    const messages = await deps.messages.after(input.roomId, input.after);
    const left = deadline - deps.now().getTime();
    if (messages.length > 0 || left <= 0) {
      return { messages, next: messages.at(-1)?.seq ?? input.after };
    }
    await deps.sleep(Math.min(messagePollPauseMs, left));
  }
}

async function ownedRoom(roomId: string, account: string, rooms: Pick<RoomStore, 'find'>): Promise<Room> {
  const room = await rooms.find(roomId);
  if (!room) throw new RoomNotFoundError(roomId);
  if (room.owner !== account) throw new NotRoomOwnerError(roomId);
  return room;
}

/** The whitelist the room's sidecar was started with: the room's copy, else its configuration's. */
async function allowedCommands(room: Room, configurations: Pick<GameConfigurations, 'get'>): Promise<string[]> {
  if (room.commands) return [...room.commands];
  if (room.hosting === 'peerHosted') return [];
  try {
    return [...(await configurations.get(room.gameId, room.version)).commands];
  } catch (error) {
    if (error instanceof GameConfigurationNotFoundError) return [];
    throw error;
  }
}

/** Why the room has no game server taking commands now, as the end of a sentence; undefined when it has one. */
function whyNotReady(room: Pick<Room, 'state' | 'hosting'>): string | undefined {
  if (room.hosting === 'peerHosted') return 'it is peer-hosted and has no game server.';
  switch (room.state) {
    case 'ready':
      return undefined;
    case 'spawning':
      return 'its game server is still starting; retry once the room is ready.';
    case 'failed':
    case 'closed':
      return `the room is ${room.state}.`;
  }
}
