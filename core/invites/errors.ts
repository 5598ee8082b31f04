import { PlatformError } from '../errors';

/** Only the session's arbiter invites where it has one (a member host): anyone else, 403. */
export class InviterNotArbiterError extends PlatformError {
  override readonly name = 'InviterNotArbiterError';
  readonly code = 'FORBIDDEN';
  constructor(
    readonly roomId: string,
    readonly host: string,
  ) {
    super(`Only the arbiter of room ${roomId} (${host}) may invite to it.`, { details: { roomId, host } });
  }
}

/**
 * A peer-hosted session whose template asks for an arbiter takes invites from the arbiter
 * alone, and none is elected now: 409 `CONFLICT` (one is elected by a member's claim).
 */
export class NoInvitingArbiterError extends PlatformError {
  override readonly name = 'NoInvitingArbiterError';
  readonly code = 'CONFLICT';
  constructor(readonly roomId: string) {
    super(
      `Room ${roomId} takes invites from its arbiter alone, and none is elected now; invite again once one is (POST /v1/rooms/${roomId}/host).`,
      { details: { roomId } },
    );
  }
}

/** Only live members invite: anyone else, 403. */
export class InviterNotMemberError extends PlatformError {
  override readonly name = 'InviterNotMemberError';
  readonly code = 'FORBIDDEN';
  constructor(readonly roomId: string) {
    super(`Only members of room ${roomId} may invite to it; join it first.`, { details: { roomId } });
  }
}

/** An invited account is banned: nothing is written, 403 `BANNED` naming it. */
export class InviteeBannedError extends PlatformError {
  override readonly name = 'InviteeBannedError';
  readonly code = 'BANNED';
  constructor(readonly account: string) {
    super(`Account '${account}' is banned and cannot be invited.`, { details: { account } });
  }
}

/**
 * An invited account holds as many live invites as one account may receive: nothing is
 * written, 409 `CONFLICT` naming it (its invites expire by themselves; a decline frees one).
 */
export class InviteeFullError extends PlatformError {
  override readonly name = 'InviteeFullError';
  readonly code = 'CONFLICT';
  constructor(
    readonly account: string,
    readonly limit: number,
  ) {
    super(`Account '${account}' already holds ${limit} live invites, the most one account may receive.`, {
      details: { account, limit },
    });
  }
}

/** Sessions whose members are items of their own (`large`) take no invites. 409 `NOT_JOINABLE`. */
export class InvitesOffError extends PlatformError {
  override readonly name = 'InvitesOffError';
  readonly code = 'NOT_JOINABLE';
  constructor(
    readonly roomId: string,
    why: string,
  ) {
    super(`Room '${roomId}' takes no invites: ${why}.`, { details: { roomId, reason: why } });
  }
}
