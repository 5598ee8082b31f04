import { randomUUID } from 'node:crypto';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import type { GameConfigurations } from '../../../core/gameservers/configuration-store';
import { GameConfigurationNotFoundError } from '../../../core/gameservers/errors';
import { gameServerConfigurationBodySchema } from '../../../core/gameservers/schema';

export function aConfiguration(overrides: Partial<GameServerConfiguration> = {}): GameServerConfiguration {
  return {
    ...gameServerConfigurationBodySchema.parse({ binary: '/games/arena', maxPlayers: 4 }),
    spawnTimeoutS: 30,
    gameId: `g-${randomUUID().slice(0, 8)}`,
    version: '1',
    updatedAt: '2026-01-01T00:00:00.000Z',
    ...overrides,
  };
}

/** The rules every `GameConfigurations` keeps, for the fake (unit) and the store (integration). */
export function gameConfigurationsContract(subject: () => GameConfigurations): void {
  it('gives back what was put, per game version', async () => {
    const store = subject();
    const one = aConfiguration();
    const two = aConfiguration({ gameId: one.gameId, version: '2', maxPlayers: 16 });
    await store.put(one);
    await store.put(two);
    await expect(store.get(one.gameId, '1')).resolves.toEqual(one);
    await expect(store.get(one.gameId, '2')).resolves.toEqual(two);
  });

  it('replaces a version on put', async () => {
    const store = subject();
    const first = aConfiguration({ env: { MODE: 'a' } });
    const second = aConfiguration({ gameId: first.gameId, maxPlayers: 2 });
    await store.put(first);
    await store.put(second);
    await expect(store.get(first.gameId, first.version)).resolves.toEqual(second);
  });

  it('answers 404 for a version it does not hold, on get and on delete', async () => {
    const store = subject();
    const missing = aConfiguration();
    await expect(store.get(missing.gameId, '1')).rejects.toBeInstanceOf(GameConfigurationNotFoundError);
    await expect(store.delete(missing.gameId, '1')).rejects.toMatchObject({ status: 404 });
  });

  it('forgets a deleted version, once', async () => {
    const store = subject();
    const configuration = aConfiguration();
    await store.put(configuration);
    await store.delete(configuration.gameId, configuration.version);
    await expect(store.get(configuration.gameId, configuration.version)).rejects.toBeInstanceOf(
      GameConfigurationNotFoundError,
    );
    await expect(store.delete(configuration.gameId, configuration.version)).rejects.toBeInstanceOf(
      GameConfigurationNotFoundError,
    );
  });

  it('records a revision from the deployed template only over the configuration it was registered for, and is read at once', async () => {
    const store = subject();
    const derived = aConfiguration({
      image: 'public.ecr.aws/studio/arena:1',
      taskDefinition: 'arn:aws:ecs:eu-west-1:1:task-definition/rk:5',
      templateTaskDefinition: 'arn:aws:ecs:eu-west-1:1:task-definition/rk:3',
    });
    await store.put(derived);
    await store.recent(derived.gameId, derived.version);
    const revision = {
      taskDefinition: 'arn:aws:ecs:eu-west-1:1:task-definition/rk:9',
      templateTaskDefinition: 'arn:aws:ecs:eu-west-1:1:task-definition/rk:4',
    };
    await expect(store.followTemplate(derived, revision)).resolves.toBe(true);
    await expect(store.recent(derived.gameId, derived.version)).resolves.toEqual({ ...derived, ...revision });
    // Another process that registered from the same configuration comes second: the first revision stays.
    const late = {
      taskDefinition: 'arn:aws:ecs:eu-west-1:1:task-definition/rk:10',
      templateTaskDefinition: revision.templateTaskDefinition,
    };
    await expect(store.followTemplate(derived, late)).resolves.toBe(false);
    // An admin's PUT since (a new updatedAt) wins too.
    const replaced = { ...derived, ...revision, updatedAt: '2026-02-01T00:00:00.000Z' };
    await store.put(replaced);
    await expect(store.followTemplate({ ...derived, ...revision }, late)).resolves.toBe(false);
    await expect(store.get(derived.gameId, derived.version)).resolves.toEqual(replaced);
  });

  it('serves recent reads that see its own puts and deletes at once, each a copy', async () => {
    const store = subject();
    const first = aConfiguration({ maxPlayers: 4 });
    await expect(store.recent(first.gameId, first.version)).rejects.toBeInstanceOf(GameConfigurationNotFoundError);
    await store.put(first);
    const read = await store.recent(first.gameId, first.version);
    expect(read).toEqual(first);
    (read as { maxPlayers: number }).maxPlayers = 99;
    await expect(store.recent(first.gameId, first.version)).resolves.toEqual(first);
    const second = { ...first, maxPlayers: 8 };
    await store.put(second);
    await expect(store.recent(first.gameId, first.version)).resolves.toEqual(second);
    await store.delete(first.gameId, first.version);
    await expect(store.recent(first.gameId, first.version)).rejects.toBeInstanceOf(GameConfigurationNotFoundError);
  });

  it('lists every configuration once, page by page in game and version order, as put, and no deleted one', async () => {
    const store = subject();
    const gameId = `g-${randomUUID().slice(0, 8)}`;
    const versions = ['1', '2', '2.1', '3'].map((version) => aConfiguration({ gameId, version }));
    for (const configuration of [...versions].reverse()) await store.put(configuration);
    await store.delete(gameId, '2.1');
    const seen: GameServerConfiguration[] = [];
    let nextToken: string | undefined;
    do {
      const page = await store.list(nextToken, 2);
      expect(page.items.length).toBeLessThanOrEqual(2);
      seen.push(...page.items.filter((configuration) => configuration.gameId === gameId));
      nextToken = page.nextToken;
    } while (nextToken);
    expect(seen).toEqual([versions[0], versions[1], versions[3]]);
    await expect(store.list('not-a-token', 2)).rejects.toMatchObject({ status: 400 });
  });
}
