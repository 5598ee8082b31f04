import { gameServerConfigurationBodySchema } from '../../../../core/gameservers/schema';

describe('configuration env names', () => {
  // `__proto__` never reaches the schema: the JSON body parser refuses it (core/protocol/json-body.ts).
  it.each(['prototype', 'constructor'])('refuses %s, a prototype key name, naming the field', (name) => {
    const parsed = gameServerConfigurationBodySchema.safeParse({ binary: '/g', maxPlayers: 2, env: { [name]: '' } });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path.slice(0, 1)).toEqual(['env']);
  });

  it('accepts ordinary names', () => {
    expect(
      gameServerConfigurationBodySchema.parse({ binary: '/g', maxPlayers: 2, env: { LOG_LEVEL: 'x' } }).env,
    ).toEqual({
      LOG_LEVEL: 'x',
    });
  });
});
