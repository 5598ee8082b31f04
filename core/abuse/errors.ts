import { PlatformError } from '../errors';
import type { RateLimitedAction } from './rate-limit';

/** What a rate-limited caller is told, besides the `Retry-After` header. */
export interface RateLimitDetails {
  readonly action: RateLimitedAction;
  /** Allowed in any span of `windowS` seconds. */
  readonly limit: number;
  readonly windowS: number;
  /** The same number as the `Retry-After` header. */
  readonly retryAfterS: number;
}

const actionNames = {
  join: 'joins',
  create: 'room creations',
  command: 'commands',
  messagePoll: 'message polls',
  invite: 'invites',
} as const;

/**
 * The account used up its allowance for the last `windowS` seconds (or its log could not be written
 * under throttling, which is judged the same way: wait and retry). 429 with `Retry-After`.
 */
export abstract class AbuseRateLimitedError extends PlatformError {
  readonly code = 'RATE_LIMITED';
  constructor(
    readonly account: string,
    readonly rate: RateLimitDetails,
    options: { cause?: unknown } = {},
  ) {
    super(
      `Too many ${actionNames[rate.action]} from this account: at most ${rate.limit} per ${rate.windowS} s. Retry in ${rate.retryAfterS} s.`,
      { details: rate, headers: { 'Retry-After': String(rate.retryAfterS) }, cause: options.cause },
    );
  }

  get retryAfterS(): number {
    return this.rate.retryAfterS;
  }
}

export class JoinRateLimitedError extends AbuseRateLimitedError {
  override readonly name = 'JoinRateLimitedError';
}

export class CreateRateLimitedError extends AbuseRateLimitedError {
  override readonly name = 'CreateRateLimitedError';
}

export class CommandRateLimitedError extends AbuseRateLimitedError {
  override readonly name = 'CommandRateLimitedError';
}

export class MessagePollRateLimitedError extends AbuseRateLimitedError {
  override readonly name = 'MessagePollRateLimitedError';
}

export class InviteRateLimitedError extends AbuseRateLimitedError {
  override readonly name = 'InviteRateLimitedError';
}

/** A ban in force. 403 `BANNED`; the message says until when, unless it is permanent. */
export class AccountBannedError extends PlatformError {
  override readonly name = 'AccountBannedError';
  readonly code = 'BANNED';
  constructor(
    readonly account: string,
    readonly expiresAt?: string,
  ) {
    super(
      expiresAt ? `This account is banned until ${expiresAt}.` : 'This account is banned.',
      expiresAt ? { details: { expiresAt } } : undefined,
    );
  }
}

export class BanNotFoundError extends PlatformError {
  override readonly name = 'BanNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(readonly account: string) {
    super(`No ban in force for account '${account}'.`);
  }
}
