import { RequestInvalidError } from '../../../../core/errors';
import { configurationForFleet } from '../../../../core/gameservers/fleet-fit';
import { gameServerConfigurationBodySchema } from '../../../../core/gameservers/schema';

const identity = { gameId: 'arena', version: '2.0.0', updatedAt: '2026-01-01T00:00:00.000Z' };
const ecsFleet = { maxPorts: 4, defaultSpawnTimeoutS: 120 };
const body = (fields: Record<string, unknown>) =>
  gameServerConfigurationBodySchema.parse({ image: 'registry.example/arena:2', maxPlayers: 8, ...fields });

describe('configurations against the fleet', () => {
  it('refuses more ports than the fleet opens, naming the limit and the field', () => {
    const attempt = () => configurationForFleet(body({ ports: 16 }), identity, ecsFleet);
    expect(attempt).toThrow(RequestInvalidError);
    expect(attempt).toThrow(/at most 4 ports .*asks for 16/);
    try {
      attempt();
    } catch (error) {
      expect((error as RequestInvalidError).details).toMatchObject({
        fields: [{ field: 'body.ports', message: 'must be at most 4 on this fleet' }],
      });
    }
  });

  it("a configuration without spawnTimeoutS gets the fleet's default (120 s on ECS, 30 s local); one it sets is kept", () => {
    expect(configurationForFleet(body({ ports: 4 }), identity, ecsFleet).spawnTimeoutS).toBe(120);
    expect(configurationForFleet(body({}), identity, { maxPorts: 16, defaultSpawnTimeoutS: 30 }).spawnTimeoutS).toBe(
      30,
    );
    expect(configurationForFleet(body({ spawnTimeoutS: 45 }), identity, ecsFleet)).toMatchObject({
      ...identity,
      spawnTimeoutS: 45,
    });
  });
});

describe("configuration images against the fleet's pull permissions (ECS)", () => {
  const pulling = { ...ecsFleet, ecrRepositories: ['123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/arena'] };

  it('accepts public images and any tag or digest of a repository the fleet may pull', () => {
    for (const image of [
      'public.ecr.aws/studio/arena:2',
      'docker.io/library/nginx:1',
      '123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/arena:2.0.0',
      `123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/arena@sha256:${'a'.repeat(64)}`,
    ]) {
      expect(configurationForFleet(body({ image }), identity, pulling).image).toBe(image);
    }
  });

  it('refuses a private ECR image of another repository with a 400 naming body.image and the repositories it may pull', () => {
    const attempt = () =>
      configurationForFleet(
        body({ image: '123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/other:1' }),
        identity,
        pulling,
      );
    expect(attempt).toThrow(RequestInvalidError);
    expect(attempt).toThrow(
      /private ECR repositories: 123456789012\.dkr\.ecr\.eu-west-1\.amazonaws\.com\/studio\/arena; .*studio\/other is not one of them/,
    );
  });

  it('checks nothing where the fleet declares no repositories (the local fleet)', () => {
    const image = '123456789012.dkr.ecr.eu-west-1.amazonaws.com/studio/other:1';
    expect(configurationForFleet(body({ image }), identity, ecsFleet).image).toBe(image);
  });
});
