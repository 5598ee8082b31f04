import * as z from 'zod';
import { RequestInvalidError } from '../errors';
import { logTtl, type RateLimitPolicy } from './rate-limit';

/**
 * Accounts are token subjects (`sub`), chosen by the identity provider: any printable ASCII
 * without spaces (`auth0|123`, UUIDs, e-mail addresses), so every account that can call
 * the API can also be banned.
 */
export const accountSchema = z
  .string()
  .min(1)
  .max(256)
  .regex(/^[\x21-\x7E]+$/, 'must be printable ASCII without spaces')
  // `.` and `..` cannot be addressed as a path segment (clients normalise them away).
  .refine((account) => account !== '.' && account !== '..', 'must not be . or ..');

export const banRequestSchema = z
  .strictObject({
    account: accountSchema,
    reason: z.string().min(1).max(1024).optional().describe('For operators; never shown to the banned player.'),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe("When the ban ends (ISO-8601, after the server's now). Absent: it holds until lifted."),
  })
  .meta({ id: 'BanRequest' });

export type BanRequest = z.output<typeof banRequestSchema>;

export const banSchema = z
  .object({
    account: z.string(),
    reason: z.string().optional(),
    expiresAt: z.iso.datetime().optional().describe('UTC. Absent: the ban holds until lifted.'),
    createdAt: z.iso.datetime(),
    createdBy: z.string().describe('The admin account that placed the ban.'),
  })
  .meta({ id: 'Ban' });

export type Ban = z.output<typeof banSchema>;

/**
 * A ban from an admin's request. The expiry is normalised to UTC and must lie after `now`:
 * a ban that would never be in force is a mistake worth a 400, not a silent no-op.
 */
export function newBan(request: BanRequest, by: string, now: Date): Ban {
  let expiresAt: string | undefined;
  if (request.expiresAt !== undefined) {
    const expiresAtMs = Date.parse(request.expiresAt);
    if (!(expiresAtMs > now.getTime())) {
      throw new RequestInvalidError('Invalid body: body.expiresAt must be in the future.', [
        { field: 'body.expiresAt', message: `must be after ${now.toISOString()}` },
      ]);
    }
    expiresAt = new Date(expiresAtMs).toISOString();
  }
  return {
    account: request.account,
    ...(request.reason === undefined ? {} : { reason: request.reason }),
    ...(expiresAt === undefined ? {} : { expiresAt }),
    createdAt: now.toISOString(),
    createdBy: by,
  };
}

/**
 * Whether a ban blocks at `now`. Judged here, lazily, on every read: TTL deletes up to days
 * late and expired items still read back, so an expired ban must never block.
 */
export function banInForce(ban: Pick<Ban, 'expiresAt'>, now: Date): boolean {
  return ban.expiresAt === undefined || Date.parse(ban.expiresAt) > now.getTime();
}

/** When TTL may collect the ban item (epoch seconds); permanent bans are never collected. */
export function banTtl(ban: Pick<Ban, 'expiresAt'>): number | undefined {
  return ban.expiresAt === undefined ? undefined : Math.ceil(Date.parse(ban.expiresAt) / 1000);
}

/**
 * A ban as the account's gate items carry it (core/abuse/rate-limit-store.ts), so the log's one
 * conditional write refuses a banned account: `until` is its end in epoch ms, absent if permanent.
 */
const gateBanSchema = z.object({ until: z.number().optional() });

export type GateBan = z.output<typeof gateBanSchema>;

export function gateBanOf(ban: Pick<Ban, 'expiresAt'>): GateBan {
  return ban.expiresAt === undefined ? {} : { until: Date.parse(ban.expiresAt) };
}

/**
 * The ban a gate item carries, if it is in force at `now` (the same judgement as `banInForce`,
 * and the same the write's condition makes): `expiresAt` for the 403, absent if permanent.
 */
export function gateBanInForce(stored: unknown, now: Date): { expiresAt?: string } | undefined {
  const parsed = gateBanSchema.safeParse(stored);
  if (!parsed.success) return undefined;
  const { until } = parsed.data;
  if (until === undefined) return {};
  return until > now.getTime() ? { expiresAt: new Date(until).toISOString() } : undefined;
}

/**
 * When TTL may collect a gate item that carries `ban` (epoch seconds; `undefined`: never, for a
 * permanent ban). Never before the ban ends, else the account is admitted again; and never
 * before the log's own end, else admissions made just before the ban stop counting. The log's
 * last admission was at or before `now`, so `logTtl(now)` is at least the end it had.
 */
export function mirroredBanTtl(ban: Pick<Ban, 'expiresAt'>, policy: RateLimitPolicy, now: Date): number | undefined {
  const banEnd = banTtl(ban);
  return banEnd === undefined ? undefined : Math.max(banEnd, logTtl(now, policy));
}
