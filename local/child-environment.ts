/**
 * What every process the local cloud starts inherits from the platform's own environment:
 * where to find programs, the user's home and temporary directory, the locale, and the log
 * level. Nothing else: the platform's environment is the developer's shell (which may hold
 * their AWS credentials or other tokens), and a game, running as the same user, can read any
 * same-user process's `/proc/<pid>/environ`, including one started (or restarted) long after.
 */
export const inheritedByChildren = [
  'PATH',
  'HOME',
  'TMPDIR',
  'LANG',
  'LC_ALL',
  'TZ',
  'POWERTOOLS_LOG_LEVEL',
  'POWERTOOLS_DEV',
] as const;

/**
 * An explicit environment for a child process: the few `inheritedByChildren` of `parent`
 * that are set, then `extra` (its `undefined` values left out). Pass it as `env` to every
 * `spawn`: without one, the child gets the whole of `process.env`.
 */
export function childEnvironment(
  extra: Readonly<Record<string, string | undefined>> = {},
  parent: Readonly<Record<string, string | undefined>> = process.env,
): NodeJS.ProcessEnv {
  const env: Record<string, string> = {};
  for (const name of inheritedByChildren) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  for (const [name, value] of Object.entries(extra)) if (value !== undefined) env[name] = value;
  return env;
}
