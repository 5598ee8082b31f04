import { RequestInvalidError } from '../errors';
import type { GameServerConfiguration } from '../gameservers/configuration';
import {
  asksForArbiter,
  hostRulesOf,
  type SessionConstants,
  type SessionTimeout,
  type SessionTimeouts,
} from '../rooms/session-model';
import type { TemplateBody } from './template-schema';

/**
 * A session template (docs/api.md, "Session documents"): what every session made from it shares.
 * `dedicated` templates name a game server configuration; `peerHosted` ones have no server.
 */
export interface SessionTemplate {
  readonly name: string;
  readonly hosting: 'dedicated' | 'peerHosted';
  /** Present exactly when `hosting` is `dedicated`. */
  readonly gameId?: string;
  readonly version?: string;
  /** As the admin wrote them: omitted timeouts stay omitted (see `constantsFromTemplate`). */
  readonly constants: TemplateBody['constants'];
  readonly updatedAt: string;
}

/** The part of a configuration a session's constants depend on. */
export type ConfigurationLimits = Pick<GameServerConfiguration, 'maxPlayers' | 'reservationTimeoutS'>;

/** How long a peer-hosted member may stay reserved when its template does not say: the configurations' default. */
export const peerHostedReservedMsDefault = 30_000;

export function templateFromBody(name: string, body: TemplateBody, now: Date): SessionTemplate {
  const hosting = body.gameId !== undefined && body.version !== undefined ? 'dedicated' : 'peerHosted';
  return {
    name,
    hosting,
    ...(hosting === 'dedicated' ? { gameId: body.gameId, version: body.version } : {}),
    constants: body.constants,
    updatedAt: now.toISOString(),
  };
}

/**
 * A dedicated template's sessions run on the configuration's server: never more members than
 * the server takes. Checked when the template is stored and again when a session is made
 * from it (the configuration may have been replaced since).
 */
export function assertTemplateFitsConfiguration(
  template: Pick<SessionTemplate, 'name' | 'constants'>,
  configuration: Pick<GameServerConfiguration, 'maxPlayers'>,
  field: string,
): void {
  if (template.constants.maxMembers <= configuration.maxPlayers) return;
  throw new RequestInvalidError(
    `Template ${template.name} allows ${template.constants.maxMembers} members, but its game server configuration takes at most ${configuration.maxPlayers} players.`,
    [{ field, message: `must be at most ${configuration.maxPlayers}, the configuration's maxPlayers` }],
  );
}

/**
 * The constants of a configuration-based room created without a template, so every room is
 * a session: the configuration's (or the request's) player count, open to all, a reservation
 * lasting the configuration's `reservationTimeoutS`, nothing else timed.
 *
 * @example
 * defaultTemplateConstants({ maxPlayers: 8, reservationTimeoutS: 30 })
 * // { maxMembers: 8, visibility: 'open',
 * //   timeouts: { reservedMs: 30000, readyMs: null, inactiveMs: null, sessionEmptyMs: null }, custom: {} }
 */
export function defaultTemplateConstants(
  configuration: ConfigurationLimits,
  requestedMaxPlayers?: number,
): SessionConstants {
  const maxMembers = requestedMaxPlayers ?? configuration.maxPlayers;
  if (maxMembers > configuration.maxPlayers) {
    throw new RequestInvalidError(`maxPlayers may not exceed the configuration's ${configuration.maxPlayers}.`, [
      { field: 'body.maxPlayers', message: `must be at most ${configuration.maxPlayers}` },
    ]);
  }
  return {
    maxMembers,
    visibility: 'open',
    timeouts: {
      reservedMs: configuration.reservationTimeoutS * 1000,
      readyMs: null,
      inactiveMs: null,
      sessionEmptyMs: null,
    },
    custom: {},
  };
}

/**
 * A template's constants with every omitted timeout filled in, for a session created now:
 *
 * | omitted          | dedicated                                | peer-hosted |
 * | ---------------- | ---------------------------------------- | ----------- |
 * | `reservedMs`     | configuration's `reservationTimeoutS`×1000 | 30 000    |
 * | `readyMs`        | null (never)                             | null        |
 * | `inactiveMs`     | null (never)                             | null        |
 * | `sessionEmptyMs` | null (the server's lifecycle ends it)    | 0 (at once: nobody is left to host it) |
 * | `disconnectedMs` | never set (refused on dedicated templates) | absent (sockets are not presence) |
 *
 * An explicit null always means never.
 */
export function constantsFromTemplate(
  template: Pick<SessionTemplate, 'hosting' | 'constants'>,
  configuration: ConfigurationLimits | undefined,
): SessionConstants {
  const written = template.constants.timeouts;
  const peerHosted = template.hosting === 'peerHosted';
  const or = (value: SessionTimeout | undefined, fallback: SessionTimeout): SessionTimeout =>
    value === undefined ? fallback : value;
  const timeouts: SessionTimeouts = {
    reservedMs: or(
      written.reservedMs,
      configuration && !peerHosted ? configuration.reservationTimeoutS * 1000 : peerHostedReservedMsDefault,
    ),
    readyMs: or(written.readyMs, null),
    inactiveMs: or(written.inactiveMs, null),
    sessionEmptyMs: or(written.sessionEmptyMs, peerHosted ? 0 : null),
    // Kept only when it times something: absent is what every older room holds, and means never.
    ...(peerHosted && typeof written.disconnectedMs === 'number' ? { disconnectedMs: written.disconnectedMs } : {}),
  };
  return {
    maxMembers: template.constants.maxMembers,
    visibility: template.constants.visibility,
    timeouts,
    custom: template.constants.custom,
    ...(template.constants.capabilities?.length ? { capabilities: template.constants.capabilities } : {}),
    // A dedicated room's server is its arbiter whatever the template says; a peer-hosted session has one only when asked.
    ...(peerHosted && !asksForArbiter(template.constants) ? {} : hostRulesOf(template.constants)),
  };
}
