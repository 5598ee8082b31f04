import { hash64 } from '../versions/protocol';
import type { GameServerConfigurationBody } from './schema';

/** What of a configuration makes the server process what it is: what it runs, how, and which build it declares. */
type DeploymentParts = Pick<GameServerConfigurationBody, 'binary' | 'image' | 'args' | 'env' | 'ports'> & {
  readonly protocol?: { readonly hash: string };
};

/**
 * A configuration's deployment id: 16 hex digits naming the server build it starts (its
 * binary or image, arguments, environment, ports and declared protocol hash). A room keeps the
 * id it was started with; `check_deployment` answers `current: false` once the configuration's
 * id moved on, so a server can drain itself after an update. Size, timeouts, commands and the
 * warm pool do not change the build, and do not change the id. Pure.
 */
export function deploymentOf(configuration: DeploymentParts): string {
  const env = Object.entries(configuration.env ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return hash64(
    JSON.stringify([
      configuration.binary ?? null,
      configuration.image ?? null,
      configuration.args ?? [],
      env,
      configuration.ports ?? 1,
      configuration.protocol?.hash ?? null,
    ]),
  );
}
