/**
 * How many members a session holds: a bound both a game server configuration (its `maxPlayers`)
 * and a session template (its `maxMembers`) are judged by, so it sits below both.
 */

/** The most members a session holds in its one document (docs/api.md: maxMembers 1–100). */
export const maxSessionMembers = 100;

/** The most members a `large` session holds: its members are items of their own. */
export const maxLargeSessionMembers = 1_000;
