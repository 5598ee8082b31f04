import { PlatformError } from '../errors';

/** Constants are fixed when a session is created (docs/api.md): any write to them answers 403. */
export class SessionConstantsImmutableError extends PlatformError {
  override readonly name = 'SessionConstantsImmutableError';
  readonly code = 'FORBIDDEN';
  constructor(readonly roomId?: string) {
    super('The constants of a session are fixed when it is created and cannot be written.', {
      details: { field: 'body.constants' },
    });
  }
}

/** An `If-Match` change number that is no longer the session's current one. */
export class SessionPreconditionFailedError extends PlatformError {
  override readonly name = 'SessionPreconditionFailedError';
  readonly code = 'PRECONDITION_FAILED';
  constructor(
    readonly roomId: string,
    readonly expectedChangeNumber: number,
    readonly currentChangeNumber: number,
  ) {
    super(
      `Room ${roomId} is at change number ${currentChangeNumber}, not ${expectedChangeNumber}: read it again and retry.`,
      { details: { roomId, changeNumber: currentChangeNumber } },
    );
  }
}

/** Only a session's live members write it (docs/api.md): anyone else, authenticated, gets 403. */
export class SessionMembersOnlyError extends PlatformError {
  override readonly name = 'SessionMembersOnlyError';
  readonly code = 'FORBIDDEN';
  constructor(readonly roomId: string) {
    super(`Only members of room ${roomId} may change it; join it first.`, { details: { roomId } });
  }
}

/**
 * A member that cannot take its share of the room's one item (core/rooms/item-budget.ts):
 * refused before anything is written, so the room stays as it was.
 */
export class SessionMemberTooLargeError extends PlatformError {
  override readonly name = 'SessionMemberTooLargeError';
  readonly code = 'PAYLOAD_TOO_LARGE';
  constructor(
    readonly roomId: string,
    why: string,
  ) {
    super(`Cannot hold a slot in room ${roomId}: ${why}.`, { details: { roomId } });
  }
}

/**
 * A write that would take the room's item past its size budget, refused before it was sent,
 * or by DynamoDB at its 400 KB limit. The bounds of core/rooms/item-budget.ts keep every
 * room made by this code under it; a room stored before them may be too large to grow.
 * Nothing was written.
 */
export class SessionDocumentFullError extends PlatformError {
  override readonly name = 'SessionDocumentFullError';
  readonly code = 'CONFLICT';
  constructor(
    readonly roomId: string,
    options: { cause?: unknown; why?: string } = {},
  ) {
    super(
      `Room ${roomId} cannot store this: ${options.why ?? 'its item is at its size limit; members must leave before others join'}.`,
      { details: { roomId }, cause: options.cause },
    );
  }
}

/** DynamoDB's refusal of a write that would make an item larger than 400 KB. */
export function isItemTooLarge(error: unknown): boolean {
  return (
    error instanceof Error &&
    error.name === 'ValidationException' &&
    /item size.*exceeded the maximum allowed size/i.test(error.message)
  );
}

/**
 * A write a large session does not take (core/rooms/large-members.ts): anything that would
 * need its whole member list in one item, or an arbiter. 409: the same request to a session
 * of another template could succeed.
 */
export class LargeSessionUnsupportedError extends PlatformError {
  override readonly name = 'LargeSessionUnsupportedError';
  readonly code = 'CONFLICT';
  constructor(roomId: string, what: string) {
    super(
      `Room ${roomId} is a large session: ${what} is not in large sessions (they keep counts, each member its own item, and have no arbiter).`,
      { details: { roomId, reason: 'large-session' } },
    );
  }
}
