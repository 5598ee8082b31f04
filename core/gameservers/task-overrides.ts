import { RequestInvalidError, type FieldIssue } from '../errors';
import type { GameSettings } from './game-server';

/**
 * ECS refuses a RunTask whose `overrides` take more than 8,192 characters as JSON, formatting
 * included. The ECS spawner passes everything per room there (core/gameservers/ecs-spawner.ts),
 * so the budget is split and each part is capped where it enters the platform:
 *
 * | part          | what                                                                  | capped by                          |
 * | ------------- | --------------------------------------------------------------------- | ---------------------------------- |
 * | platform      | JSON structure, container names, the sidecar's variables, SIDECAR_    | deployment values (test/unit/core/ |
 * |               | SEALED (its scoped STS session and channel key, deflated, encrypted,  | gameservers/task-overrides.test.ts |
 * |               | base64url), the game server token without scopes, ports, ids          | builds the worst case)             |
 * | configuration | binary (twice), args, env, serverSettings, commands, serverScopes (in | PUT of the configuration (400)     |
 * |               | the game server token)                                                |                                    |
 * | room settings | `room_settings` of the game container (criteria merged in)            | room creation (400)                |
 *
 * Room settings go to the game container only: the sidecar started by ECS never launches the
 * game, so the game's launch variables are left out of its environment (`launchOnlyVariables`).
 */
export const runTaskOverridesMaxChars = 8_192;

export const taskOverridesBudget = {
  platform: 4_608,
  configuration: 1_024,
  roomSettings: 2_560,
} as const;

/**
 * The AWS_SESSION_TOKEN the platform part is sized for. STS does not fix its length; the
 * room-scoped sessions (core/gameservers/sidecar-credentials.ts) come to about 1,000. It is
 * base64 text, which SIDECAR_SEALED deflates to about 3/4 before its base64url takes 4/3 again:
 * sealed, the secrets take about what they took in clear (core/gameservers/sidecar-envelope.ts).
 */
export const assumedMaxSessionTokenChars = 2_048;

/** How many characters a string takes as a JSON string inside the overrides, quotes included. */
function jsonStringChars(value: string): number {
  return JSON.stringify(value).length;
}

/** `room_settings` as it appears in the overrides. */
export function roomSettingsOverrideChars(settings: GameSettings): number {
  return jsonStringChars(JSON.stringify(settings));
}

export interface ConfigurationOverrideParts {
  readonly binary?: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly serverSettings: Readonly<Record<string, unknown>>;
  readonly commands: readonly string[];
  readonly serverScopes: readonly string[];
}

/**
 * What a configuration adds to a task's overrides (an upper bound): its binary in the
 * command and the sidecar's GAME_BINARY, each arg, each env pair, server settings,
 * COMMAND_WHITELIST, and its server scopes inside the base64url game server token.
 */
export function configurationOverrideChars(parts: ConfigurationOverrideParts): number {
  const binary = parts.binary ?? '/game/server';
  const pair = (name: string, value: string) => JSON.stringify({ name, value }).length + 1;
  return (
    2 * jsonStringChars(binary) +
    parts.args.reduce((sum, arg) => sum + jsonStringChars(arg) + 1, 0) +
    Object.entries(parts.env).reduce((sum, [name, value]) => sum + pair(name, value), 0) +
    jsonStringChars(JSON.stringify(parts.serverSettings)) +
    jsonStringChars(JSON.stringify(parts.commands)) +
    // Base64url of the scopes' JSON, plus a block of padding either side.
    Math.ceil((JSON.stringify(parts.serverScopes).length * 4) / 3) +
    8
  );
}

/** Why a configuration cannot be started on ECS as it is, or undefined when it can. */
export function configurationOverrideIssue(parts: ConfigurationOverrideParts): FieldIssue | undefined {
  const used = configurationOverrideChars(parts);
  if (used <= taskOverridesBudget.configuration) return undefined;
  return {
    field: 'body.env',
    message:
      `binary, args, env, serverSettings, commands and serverScopes take ${used} characters of a game server ` +
      `task's launch overrides; at most ${taskOverridesBudget.configuration} (ECS caps them at ${runTaskOverridesMaxChars})`,
  };
}

/** Refuses room settings (criteria merged in) that would not fit the game server task's overrides. */
export function assertRoomSettingsFitTask(settings: GameSettings): void {
  const used = roomSettingsOverrideChars(settings);
  if (used <= taskOverridesBudget.roomSettings) return;
  throw new RequestInvalidError(
    `The room settings take ${used} characters once encoded for the game server; at most ${taskOverridesBudget.roomSettings}.`,
    [{ field: 'body.settings', message: `must encode to at most ${taskOverridesBudget.roomSettings} characters` }],
  );
}

/**
 * Variables of the sidecar's environment that only serve a sidecar launching the game itself
 * (the local fleet). On ECS the game has its own container: these would take the overrides
 * twice, and the game server token would reach the sidecar for nothing.
 */
export const launchOnlyVariables = {
  GAME_ARGS: undefined,
  GAME_ENV: undefined,
  ROOM_SETTINGS: undefined,
  SERVER_SETTINGS: undefined,
  DISCOVERY_SERVICES: undefined,
  LOGIN_ACCESS_TOKEN: undefined,
} as const;
