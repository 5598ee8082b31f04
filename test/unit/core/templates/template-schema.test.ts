import { templateBodySchema, templateNameSchema } from '../../../../core/templates/template-schema';

const constants = { maxMembers: 4, visibility: 'open' };

function fieldsOf(body: unknown): string[] {
  const result = templateBodySchema.safeParse(body);
  if (result.success) return [];
  return result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => [...issue.path, key].join('.'))
      : [issue.path.join('.')],
  );
}

describe('templateBodySchema', () => {
  it('fills in empty timeouts and custom, and leaves gameId and version out of a peer-hosted template', () => {
    expect(templateBodySchema.parse({ constants })).toEqual({
      constants: { maxMembers: 4, visibility: 'open', timeouts: {}, custom: {} },
    });
  });

  it('keeps null (never) apart from omitted', () => {
    const body = templateBodySchema.parse({ constants: { ...constants, timeouts: { readyMs: null, inactiveMs: 0 } } });
    expect(body.constants.timeouts).toEqual({ readyMs: null, inactiveMs: 0 });
  });

  it.each([
    ['gameId without version', { gameId: 'arena', constants }, ['version']],
    ['version without gameId', { version: '1.0.0', constants }, ['gameId']],
    ['no constants', {}, ['constants']],
    ['maxMembers 0', { constants: { ...constants, maxMembers: 0 } }, ['constants.maxMembers']],
    ['maxMembers 101', { constants: { ...constants, maxMembers: 101 } }, ['constants.maxMembers']],
    ['maxMembers 2.5', { constants: { ...constants, maxMembers: 2.5 } }, ['constants.maxMembers']],
    ['an unknown visibility', { constants: { ...constants, visibility: 'secret' } }, ['constants.visibility']],
    ['a negative timeout', { constants: { ...constants, timeouts: { readyMs: -1 } } }, ['constants.timeouts.readyMs']],
    [
      'a fractional timeout',
      { constants: { ...constants, timeouts: { reservedMs: 1.5 } } },
      ['constants.timeouts.reservedMs'],
    ],
    [
      'a timeout beyond 30 days',
      { constants: { ...constants, timeouts: { sessionEmptyMs: 30 * 86_400_000 + 1 } } },
      ['constants.timeouts.sessionEmptyMs'],
    ],
    [
      'a timeout as text',
      { constants: { ...constants, timeouts: { inactiveMs: '5' } } },
      ['constants.timeouts.inactiveMs'],
    ],
    ['an unknown timeout', { constants: { ...constants, timeouts: { joinMs: 5 } } }, ['constants.timeouts.joinMs']],
    ['an unknown constant', { constants: { ...constants, joinability: 'open' } }, ['constants.joinability']],
    ['an unknown top-level key', { constants, image: 'x' }, ['image']],
    ['custom over 2 KB', { constants: { ...constants, custom: { blob: 'x'.repeat(2048) } } }, ['constants.custom']],
    ['custom not an object', { constants: { ...constants, custom: [1] } }, ['constants.custom']],
    [
      'custom with __proto__',
      JSON.parse('{"constants":{"maxMembers":2,"visibility":"open","custom":{"__proto__":{}}}}'),
      ['constants.custom'],
    ],
    ['a bad gameId', { gameId: 'a b', version: '1', constants }, ['gameId']],
  ])('refuses %s, naming the field', (_name, body, fields) => {
    expect(fieldsOf(body)).toEqual(fields);
  });

  it.each([
    ['maxMembers 1', { constants: { ...constants, maxMembers: 1 } }],
    ['maxMembers 100', { constants: { ...constants, maxMembers: 100 } }],
    [
      'every timeout 0',
      { constants: { ...constants, timeouts: { reservedMs: 0, readyMs: 0, inactiveMs: 0, sessionEmptyMs: 0 } } },
    ],
    [
      'every timeout null',
      {
        constants: {
          ...constants,
          timeouts: { reservedMs: null, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
        },
      },
    ],
    ['a dedicated template', { gameId: 'arena', version: '1.0.0', constants: { ...constants, visibility: 'private' } }],
  ])('accepts %s', (_name, body) => {
    expect(fieldsOf(body)).toEqual([]);
  });
});

describe('templateNameSchema', () => {
  it.each(['duel', 'ranked-2v2', 'co_op.v3', 'x'.repeat(64)])('accepts %p', (name) => {
    expect(templateNameSchema.safeParse(name).success).toBe(true);
  });
  it.each(['', 'x'.repeat(65), 'two words', 'a/b', 'é', '%2F'])('refuses %p', (name) => {
    expect(templateNameSchema.safeParse(name).success).toBe(false);
  });
});
