import * as z from 'zod';
import { maxMessageBytes } from '../protocol/game-methods';
import { rpcErrorCodes, type RpcError } from '../protocol/jsonrpc';
import { storableJsonIssue, storableJsonObjectSchema } from '../protocol/storable-json';

/**
 * Commands from a room's owner to its game server, and messages from the game back to the
 * owner (docs/api.md "Commands and messages"). Pure rules here; the stores keep the records.
 *
 *   owner ─POST …/commands─► record (sent) ─sealed `command`─► sidecar ─JSON-RPC─► game
 *   owner ◄─200 answered──── record (answered) ◄─commandResult─ sidecar ◄─answer── game
 *   owner ◄─GET …/messages── message log (last 100) ◄─message── sidecar ◄─message── game
 */

/** Command names: the same shape a configuration's `commands` whitelist takes. */
const commandNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_.:-]+$/, 'must be letters, digits, _ . : or -');

/** Args travel to the game as the JSON-RPC params and are stored on the record. */
const maxCommandArgsBytes = 4 * 1024;
/** A game's answer is stored on the record: past this it is replaced by an error. */
export const maxCommandResultBytes = 16 * 1024;
/** One game → owner message's `data` (the sidecar checks the same bound). */
const maxMessageDataBytes = maxMessageBytes;
/** Messages a room's log keeps: older ones are gone. */
export const messageLogSize = 100;

export const sendCommandRequestSchema = z
  .strictObject({
    command: commandNameSchema.describe("A command of the room's configuration `commands` whitelist."),
    args: storableJsonObjectSchema(maxCommandArgsBytes)
      .optional()
      .describe('The JSON-RPC params the game server gets (an object).'),
  })
  .meta({ id: 'SendCommandRequest' });

export const commandIdSchema = z.uuid();

type CommandState = 'sent' | 'answered' | 'failed';

/** A failed command's error: the game's JSON-RPC error, or the platform's (timeout, too large). */
export interface CommandError {
  readonly code: number;
  readonly message: string;
}

/** One command as stored: under its room, collected by TTL. */
export interface CommandRecord {
  readonly roomId: string;
  readonly commandId: string;
  /** Who sent it: the room's owner when it was sent. */
  readonly account: string;
  readonly command: string;
  readonly args: Record<string, unknown>;
  readonly state: CommandState;
  readonly createdAt: string;
  /** Past this instant a command still `sent` has failed with a timeout, and no answer is taken. */
  readonly answerBy: string;
  readonly answeredAt?: string;
  readonly result?: unknown;
  readonly error?: CommandError;
}

/**
 * How long after sending the platform still takes the game's answer. The sidecar gives the
 * game PLATFORM_REPLY_TIMEOUT_S (20 s) and then reports a timeout itself; this covers that
 * and the trip back through the FIFO queue, so only a sidecar that vanished hits it.
 */
export const commandAnswerWindowS = 60;
/** How long the POST holds the caller for the answer before 202. */
export const commandAnswerWaitMs = 10_000;
/** Records and messages are garbage after a day (TTL; nothing depends on the deletion). */
export const commandRetentionS = 86_400;

export function newCommandRecord(
  input: { roomId: string; commandId: string; account: string; command: string; args: Record<string, unknown> },
  now: Date,
): CommandRecord {
  return {
    ...input,
    state: 'sent',
    createdAt: now.toISOString(),
    answerBy: new Date(now.getTime() + commandAnswerWindowS * 1000).toISOString(),
  };
}

/** The answer the platform records for one `commandResult`: the result if it can be kept, else an error. */
export type CommandOutcome =
  { readonly state: 'answered'; readonly result: unknown } | { readonly state: 'failed'; readonly error: CommandError };

/**
 * What a `commandResult` from the sidecar becomes on the record. The result must be JSON
 * DynamoDB stores exactly and at most 16 KiB of it; otherwise the owner is told why instead.
 */
export function commandOutcome(answer: { result?: unknown; error?: RpcError }): CommandOutcome {
  if (answer.error) {
    return {
      state: 'failed',
      error: { code: answer.error.code, message: answer.error.message.slice(0, 1024) },
    };
  }
  const result = answer.result ?? null;
  const issue = storableJsonIssue(result);
  if (issue) {
    const where = issue.path.length > 0 ? `result.${issue.path.join('.')}` : 'result';
    return {
      state: 'failed',
      error: {
        code: rpcErrorCodes.invalidParams,
        message: `The game's result cannot be stored: ${where} ${issue.message}.`,
      },
    };
  }
  const bytes = Buffer.byteLength(JSON.stringify(result));
  if (bytes > maxCommandResultBytes) return { state: 'failed', error: resultTooLarge(bytes) };
  return { state: 'answered', result };
}

export function resultTooLarge(bytes: number): CommandError {
  return {
    code: rpcErrorCodes.messageTooLarge,
    message: `The game's result is too large: ${bytes} bytes of JSON, at most ${maxCommandResultBytes}.`,
  };
}

/** The command's state at `now`: one still unanswered past `answerBy` has failed with a timeout. */
export function judgeCommand(record: CommandRecord, now: Date): CommandRecord {
  if (record.state !== 'sent' || Date.parse(record.answerBy) > now.getTime()) return record;
  return {
    ...record,
    state: 'failed',
    error: {
      code: rpcErrorCodes.platformTimeout,
      message: `The game server did not answer within ${commandAnswerWindowS} s.`,
    },
  };
}

/** What the owner sees of a command. */
export type CommandView =
  | { readonly commandId: string; readonly command: string; readonly state: 'sent' }
  | { readonly commandId: string; readonly command: string; readonly state: 'answered'; readonly result: unknown }
  | { readonly commandId: string; readonly command: string; readonly state: 'failed'; readonly error: CommandError };

export function commandView(record: CommandRecord, now: Date): CommandView {
  const judged = judgeCommand(record, now);
  const base = { commandId: judged.commandId, command: judged.command };
  switch (judged.state) {
    case 'sent':
      return { ...base, state: 'sent' };
    case 'answered':
      return { ...base, state: 'answered', result: judged.result ?? null };
    case 'failed':
      return {
        ...base,
        state: 'failed',
        error: judged.error ?? { code: rpcErrorCodes.internalError, message: 'The command failed.' },
      };
  }
}

const commandErrorViewSchema = z.object({ code: z.number().int(), message: z.string() });
export const commandViewSchema = z
  .discriminatedUnion('state', [
    z.object({ commandId: z.string(), command: z.string(), state: z.literal('sent') }),
    z.object({ commandId: z.string(), command: z.string(), state: z.literal('answered'), result: z.unknown() }),
    z.object({
      commandId: z.string(),
      command: z.string(),
      state: z.literal('failed'),
      error: commandErrorViewSchema,
    }),
  ])
  .meta({ id: 'Command' });

/**
 * Pauses between reads of a command record while the owner waits: short at first (a game
 * answers in milliseconds, plus two SQS trips), then steadier, so a slow answer costs few reads.
 */
export function commandPollPauseMs(attempt: number): number {
  const pauses = [25, 50, 100, 200, 300];
  return pauses[Math.min(attempt, pauses.length - 1)] ?? 300;
}

// ─────────────────────────────── messages to the owner ───────────────────────────────

/** A game's `message` data: a JSON object DynamoDB stores exactly, at most 4 KiB. */
export const messageDataSchema = storableJsonObjectSchema(maxMessageDataBytes);

export interface RoomMessage {
  /** 1, 2, 3, … per room, in the order the game sent them. */
  readonly seq: number;
  readonly data: Record<string, unknown>;
  /** When the platform recorded it (its clock). */
  readonly at: string;
}

const roomMessageViewSchema = z
  .object({ seq: z.number().int().min(1), data: z.record(z.string(), z.unknown()), at: z.string() })
  .meta({ id: 'RoomMessage' });

const maxMessageWaitS = 20;

export const readMessagesQuerySchema = z
  .strictObject({
    after: z.coerce
      .number()
      .int()
      .min(0)
      .max(Number.MAX_SAFE_INTEGER)
      .default(0)
      .describe('Only messages with a greater seq (0: every message kept).'),
    waitS: z.coerce
      .number()
      .int()
      .min(0)
      .max(maxMessageWaitS)
      .default(0)
      .describe('Long poll: answer as soon as there is a message after `after`, or after this many seconds.'),
  })
  .meta({ id: 'ReadMessagesQuery' });

export const messagesViewSchema = z
  .object({
    messages: z.array(roomMessageViewSchema),
    /** Pass back as `after` to read on: the last seq returned, else the `after` given. */
    next: z.number().int().min(0),
  })
  .meta({ id: 'RoomMessages' });

/** Pause between reads of the message log during a long poll. */
export const messagePollPauseMs = 250;
