import { z } from 'zod';
import { gameMethods } from '../../../../core/protocol/game-methods';
import { checkRpcParams } from '../../../../core/protocol/invalid-params';
import { storableJsonLimits } from '../../../../core/protocol/storable-json';

const { maxDepth } = storableJsonLimits;

const deep = (levels: number): unknown => (levels === 0 ? 1 : { a: deep(levels - 1) });

describe('checkRpcParams', () => {
  it('passes valid params through the schema (unknown members dropped)', () => {
    expect(checkRpcParams(gameMethods.joined.params, { key: 'k', extra: { x: 1 } })).toEqual({ data: { key: 'k' } });
  });

  it.each([
    ['an integer beyond 2^53', { settings: { seed: 2 ** 53 + 2 } }, 'settings.seed: is an integer beyond'],
    ['a number below 1e-300', { settings: { e: 1e-301 } }, 'settings.e: is smaller in magnitude'],
    ['an empty key', { settings: { '': 1 } }, 'settings: has an empty key'],
    [
      'a nested __proto__',
      { settings: JSON.parse('{"a":{"__proto__":{}}}') },
      "settings.a: has the reserved key '__proto__'",
    ],
    ['nesting deeper than the limit', { settings: deep(maxDepth + 1) }, `nests deeper than ${maxDepth} levels`],
    ['a bad member the schema would drop', { extra: { n: 2 ** 53 + 2 } }, 'extra.n: is an integer beyond'],
    ['a schema failure', { settings: 5 }, 'settings: '],
  ])('refuses %s with a sentence naming the member', (_name, params, words) => {
    const checked = checkRpcParams(gameMethods.inited.params, params);
    expect(checked).toEqual({ message: expect.stringContaining(words) });
    expect('message' in checked && checked.message).toMatch(/^Invalid params: .+\.$/);
  });

  it('lets settings nest exactly as deep as room settings may', () => {
    expect(checkRpcParams(gameMethods.inited.params, { settings: deep(maxDepth) })).toHaveProperty('data');
    expect(checkRpcParams(gameMethods.inited.params, { settings: deep(maxDepth + 1) })).toHaveProperty('message');
  });

  it('works for any schema', () => {
    expect(checkRpcParams(z.object({ n: z.number() }), { n: 'x' })).toEqual({
      message: expect.stringMatching(/^Invalid params: n: /),
    });
  });
});
