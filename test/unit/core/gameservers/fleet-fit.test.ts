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
