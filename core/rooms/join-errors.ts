import { PlatformError } from '../errors';

export class RoomFullError extends PlatformError {
  override readonly name = 'RoomFullError';
  readonly code = 'ROOM_FULL';
  constructor(readonly roomId: string) {
    super(`Room '${roomId}' has no free slot.`, { details: { roomId } });
  }
}

export class RoomNotJoinableError extends PlatformError {
  override readonly name = 'RoomNotJoinableError';
  readonly code = 'NOT_JOINABLE';
  constructor(
    readonly roomId: string,
    reason: string,
  ) {
    super(`Room '${roomId}' cannot be joined: ${reason}.`, { details: { roomId, reason } });
  }
}

/**
 * A party member's account refused (banned: 403 `BANNED`; rate-limited: 429 `RATE_LIMITED`):
 * the member's own refusal, its details naming the member, so the leader knows whose it is.
 * The whole party's claim was undone.
 */
export class PartyMemberRefusedError extends PlatformError {
  override readonly name = 'PartyMemberRefusedError';
  readonly code: 'BANNED' | 'RATE_LIMITED';
  constructor(
    readonly account: string,
    refusal: PlatformError & { readonly code: 'BANNED' | 'RATE_LIMITED' },
  ) {
    const details = typeof refusal.details === 'object' && refusal.details !== null ? refusal.details : {};
    super(`Party member '${account}': ${refusal.message}`, {
      details: { ...details, account },
      cause: refusal,
      ...(refusal.headers ? { headers: refusal.headers } : {}),
    });
    this.code = refusal.code;
  }
}
