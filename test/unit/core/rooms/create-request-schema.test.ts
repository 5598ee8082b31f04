import { createRoomRequestSchema } from '../../../../core/rooms/schema';

function issuesOf(body: unknown): { field: string; message: string }[] {
  const result = createRoomRequestSchema.safeParse(body);
  if (result.success) return [];
  return result.error.issues.flatMap((issue) =>
    issue.code === 'unrecognized_keys'
      ? issue.keys.map((key) => ({ field: [...issue.path, key].join('.'), message: issue.message }))
      : [{ field: issue.path.join('.'), message: issue.message }],
  );
}

describe('createRoomRequestSchema', () => {
  it.each([
    ['the old shape', { gameId: 'arena', version: '1.0.0' }],
    ['a template alone', { template: 'duel' }],
    ['a template with its gameId and version', { template: 'duel', gameId: 'arena', version: '1.0.0' }],
    [
      'custom constants and properties',
      { template: 'duel', constants: { custom: { a: 1 } }, properties: { custom: { b: 2 } } },
    ],
    ['custom parts without a template', { gameId: 'arena', version: '1', constants: { custom: {} }, properties: {} }],
  ])('accepts %s', (_name, body) => expect(issuesOf(body)).toEqual([]));

  it.each([
    ['no template and no gameId', { version: '1' }, 'gameId'],
    ['no template and no version', { gameId: 'arena' }, 'version'],
    ['a bad template name', { template: 'a/b' }, 'template'],
    ['a constant other than custom', { template: 'duel', constants: { maxMembers: 50 } }, 'constants.maxMembers'],
    ['visibility at creation', { template: 'duel', constants: { visibility: 'open' } }, 'constants.visibility'],
    ['joinability at creation', { template: 'duel', properties: { joinability: 'closed' } }, 'properties.joinability'],
    [
      'constants.custom over 2 KB',
      { template: 'duel', constants: { custom: { b: 'x'.repeat(2048) } } },
      'constants.custom',
    ],
    ['properties.custom not an object', { template: 'duel', properties: { custom: 'x' } }, 'properties.custom'],
  ])('refuses %s, naming the field', (_name, body, field) => {
    expect(issuesOf(body).map((i) => i.field)).toEqual([field]);
  });

  it('says only constants.custom may be set when another constant is', () => {
    expect(issuesOf({ template: 'duel', constants: { maxMembers: 50 } })[0]?.message).toMatch(/only constants\.custom/);
  });
});
