import type { PlatformCache } from '../infra/platform-cache';
import type { GameServerConfiguration } from './configuration';
import type { GameConfigurations, TemplateRevision } from './configuration-store';
import { SpawnFailedError } from './errors';
import type { Placement } from './game-server';
import type { SpawnRequest, Spawner } from './spawner';

interface TemplateRevisionSettings {
  /** The deployed template: this function's ECS_TASK_DEFINITION, which every deploy of a new controller changes. */
  readonly template: string;
  /** Registers the configuration's revision from the deployed template (core/gameservers/ecs-task-definitions.ts). */
  readonly register: (configuration: GameServerConfiguration) => Promise<GameServerConfiguration>;
  /** The configuration store, the one writer of a configuration's revision. */
  readonly configurations: Pick<GameConfigurations, 'followTemplate'>;
  readonly cache: PlatformCache;
}

/**
 * Whether a configuration's own revision was derived from a template other than the deployed
 * one, so it would start the controller of an earlier deploy. A revision that records no
 * template is counted as derived from another.
 */
function derivedFromOtherTemplate(
  configuration: Pick<GameServerConfiguration, 'image' | 'taskDefinition' | 'templateTaskDefinition'>,
  template: string,
): boolean {
  return (
    configuration.image !== undefined &&
    configuration.taskDefinition !== undefined &&
    configuration.templateTaskDefinition !== template
  );
}

/**
 * Starts every room from a revision of the deployed template. A configuration's revision
 * copies the controller container of the template it was registered from; after a deploy
 * that changed the template (a new controller image), the first spawn of each such
 * configuration registers it anew from the deployed template, records that revision on the
 * configuration (a conditional write by the configuration store), and starts from it.
 *
 * Done at spawn rather than at the next PUT (which may never come) or by the sweeper (which
 * would leave spawns on the old controller until it runs): the deployed template reaches a
 * function with its code, so no room starts an earlier deploy's controller. It costs a spawn
 * one comparison; only the first spawn of a configuration after such a deploy calls ECS.
 */
export class TemplateFollowingSpawner implements Spawner {
  readonly listServers?: Spawner['listServers'];

  constructor(
    /** The spawner that starts tasks (ECS). */
    readonly inner: Spawner,
    private readonly settings: TemplateRevisionSettings,
  ) {
    const { listServers } = inner;
    if (listServers) this.listServers = () => listServers.call(inner);
  }

  async spawn(request: SpawnRequest): Promise<Placement> {
    const { configuration } = request;
    if (!derivedFromOtherTemplate(configuration, this.settings.template)) return this.inner.spawn(request);
    // Shared by this process's spawns of the configuration (a pool's batch, a retried RunTask).
    const key = JSON.stringify([
      configuration.gameId,
      configuration.version,
      configuration.updatedAt,
      configuration.taskDefinition,
      this.settings.template,
    ]);
    const revision = await this.settings.cache.read('templateRevision', key, () => this.rederive(configuration));
    return this.inner.spawn({ ...request, configuration: { ...configuration, ...revision } });
  }

  stop(taskId: string, reason: string): Promise<void> {
    return this.inner.stop(taskId, reason);
  }

  private async rederive(configuration: GameServerConfiguration): Promise<TemplateRevision> {
    let registered: GameServerConfiguration;
    try {
      registered = await this.settings.register(configuration);
    } catch (error) {
      throw new SpawnFailedError("ECS could not register the configuration's task definition from the deployed one.", {
        cause: error,
      });
    }
    if (!registered.taskDefinition)
      throw new Error('No task definition was registered for a configuration with an image.');
    const revision = { taskDefinition: registered.taskDefinition, templateTaskDefinition: this.settings.template };
    // Recorded or not (an admin's PUT or another process came first), this revision copies the
    // deployed template, so this spawn may use it.
    await this.settings.configurations.followTemplate(configuration, revision);
    return revision;
  }
}
