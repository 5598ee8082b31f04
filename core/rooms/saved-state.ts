import * as z from 'zod';
import { PlatformError } from '../errors';
import { writeAsArbiter, type ArbiterCommand, type ArbiterDependencies } from './arbiter-writes';
import { isLiveMember, SessionDocumentCorruptError } from './document';
import { roomItemBudget } from './item-budget';
import { readSessionAs, type SessionDependencies } from './patch';
import type { SavedState } from './room-store';
import { SessionMembersOnlyError } from './session-errors';

/*
 * The arbiter's saved state (docs/api.md "Live sessions"): one JSON value per session, kept in
 * the room's item as `saved: { e, at, d }` (the epoch it was saved in, when, its JSON text),
 * so a save is fenced by the same conditional write as every arbiter write, and a newly
 * elected arbiter reads what the last one saved. Its size is capped so the item stays within
 * DynamoDB's 400 KB (core/rooms/item-budget.ts).
 */

/** `PUT /v1/rooms/{roomId}/state`. */
export const putStateRequestSchema = z
  .strictObject({
    state: z
      .unknown()
      .refine((value) => value !== undefined, { message: 'is required' })
      .describe(`Any JSON value, at most ${roomItemBudget.savedStateBytes} bytes serialized.`),
  })
  .meta({ id: 'PutStateRequest' });

export const savedStateViewSchema = z
  .object({
    epoch: z.number().int().describe('The host epoch the state was saved in.'),
    savedAt: z.iso.datetime(),
    state: z.unknown().describe('The JSON value the arbiter saved.'),
  })
  .meta({ id: 'SavedState' });

export const savedStateAnswerSchema = savedStateViewSchema.omit({ state: true }).meta({ id: 'SavedStateReceipt' });

/** A state whose JSON is over `roomItemBudget.savedStateBytes`: nothing was written. */
class SavedStateTooLargeError extends PlatformError {
  override readonly name = 'SavedStateTooLargeError';
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(bytes: number) {
    super(`The state is ${bytes} bytes of JSON; a session saves at most ${roomItemBudget.savedStateBytes}.`, {
      details: { field: 'body.state', limit: roomItemBudget.savedStateBytes },
    });
  }
}

/** A session whose arbiter has saved nothing yet. */
class SavedStateNotFoundError extends PlatformError {
  override readonly name = 'SavedStateNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(roomId: string) {
    super(`Room '${roomId}' has no saved state.`, { details: { roomId } });
  }
}

/** The `saved` attribute of a room item, if any. */
export function savedStateOf(item: Record<string, unknown>): SavedState | undefined {
  const saved = item.saved;
  if (saved === undefined) return undefined;
  const { e, at, d } = (saved ?? {}) as Record<string, unknown>;
  if (typeof e !== 'number' || typeof at !== 'number' || typeof d !== 'string') {
    throw new SessionDocumentCorruptError('saved is not { e, at, d }');
  }
  return { epoch: e, savedAt: at, state: d };
}

/**
 * `PUT /v1/rooms/{roomId}/state` (`X-Host-Epoch`): the arbiter replaces the saved state, in
 * its epoch. A save with an epoch that is not current is refused (409 STALE_EPOCH).
 *
 * @throws SavedStateTooLargeError, RoomNotFoundError, StaleEpochError, SessionMembersOnlyError
 */
export async function saveState(
  command: ArbiterCommand & { readonly state: unknown },
  deps: ArbiterDependencies,
): Promise<{ epoch: number; savedAt: string }> {
  const text = JSON.stringify(command.state);
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > roomItemBudget.savedStateBytes) throw new SavedStateTooLargeError(bytes);
  const read = await writeAsArbiter(
    command,
    (_read, now) => ({
      change: { set: [[['saved'], { e: command.epoch, at: now.getTime(), d: text }]] },
      now,
    }),
    deps,
  );
  const saved = read.saved as SavedState;
  return { epoch: saved.epoch, savedAt: new Date(saved.savedAt).toISOString() };
}

/** A dedicated room's saved state: its game server's, never a player's to read. */
class ServerStateError extends PlatformError {
  override readonly name = 'ServerStateError';
  readonly code = 'FORBIDDEN';
  constructor(readonly roomId: string) {
    super(`Room ${roomId}'s saved state is its game server's: only its replacement server reads it.`, {
      details: { roomId },
    });
  }
}

/**
 * `GET /v1/rooms/{roomId}/state`: a live member reads the last saved state, whichever epoch
 * saved it (a newly elected arbiter starts from it). One read, no write.
 *
 * @throws RoomNotFoundError, SavedStateNotFoundError, SessionMembersOnlyError
 */
export async function readSavedState(
  roomId: string,
  account: string,
  deps: SessionDependencies,
): Promise<{ epoch: number; savedAt: string; state: unknown }> {
  const read = await readSessionAs(roomId, account, deps);
  const member = read.doc.members[account];
  if (!member || !isLiveMember(member, read.room, deps.now().getTime())) throw new SessionMembersOnlyError(roomId);
  // A game server's state is for its replacement alone (its `inited` answer): it may hold what
  // players must not see (hands, positions), so no player reads it.
  if (read.room.hosting !== 'peerHosted') throw new ServerStateError(roomId);
  if (!read.saved) throw new SavedStateNotFoundError(roomId);
  return {
    epoch: read.saved.epoch,
    savedAt: new Date(read.saved.savedAt).toISOString(),
    state: JSON.parse(read.saved.state) as unknown,
  };
}
