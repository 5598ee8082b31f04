import fc from 'fast-check';
import {
  storableJsonIssue,
  storableJsonLimits,
  storableJsonObjectSchema,
  storableNumber,
  storableNumberIssue,
} from '../../../../core/protocol/storable-json';
import { parseJsonBody, prototypeKeyPath } from '../../../../core/protocol/json-body';

const nested = (depth: number): unknown => (depth === 0 ? 1 : { a: nested(depth - 1) });
const schema = storableJsonObjectSchema(4096);

describe('storableJsonIssue', () => {
  it.each<[string, unknown, (string | number)[], string]>([
    ['an integer beyond 2^53', { n: 2 ** 53 }, ['n'], 'beyond ±2^53'],
    ['a negative integer beyond 2^53', { a: [-(2 ** 54)] }, ['a', 0], 'beyond ±2^53'],
    ['a number below 1e-300', { x: 1e-301 }, ['x'], 'smaller in magnitude'],
    ['a number just below DynamoDB’s range', { x: -9e-131 }, ['x'], 'smaller in magnitude'],
    ['NaN', { x: Number.NaN }, ['x'], 'finite'],
    ['Infinity', { x: Number.POSITIVE_INFINITY }, ['x'], 'finite'],
    ['an empty key', { '': 1 }, [], 'empty key'],
    ['an empty key, nested', { a: { b: { '': 1 } } }, ['a', 'b'], 'empty key'],
    ['an own __proto__ key', JSON.parse('{"a":{"__proto__":{"x":1}}}'), ['a'], '__proto__'],
    ['a constructor key', { constructor: 1 }, [], 'constructor'],
    ['a prototype key', { p: { prototype: 1 } }, ['p'], 'prototype'],
    ['a key of 257 characters', { ['k'.repeat(257)]: 1 }, [], 'longer than 256'],
    ['a class instance', { d: new Date(0) }, ['d'], 'plain JSON'],
    ['a function', { f: () => 1 }, ['f'], 'must be JSON'],
    ['undefined', { u: undefined }, ['u'], 'must be JSON'],
  ])('refuses %s, naming where', (_name, value, path, message) => {
    const issue = storableJsonIssue(value);
    expect(issue?.path).toEqual(path);
    expect(issue?.message).toContain(message);
  });

  it.each<[string, unknown]>([
    ['2^53 − 1', { n: Number.MAX_SAFE_INTEGER }],
    ['−(2^53 − 1)', { n: Number.MIN_SAFE_INTEGER }],
    ['1e-130, the smallest magnitude DynamoDB stores', { x: 1e-130 }],
    ['0 and −0', { z: 0, m: -0 }],
    ['fractions', { x: 0.1 + 0.2, y: -1.5e-7 }],
    ['unicode keys and lone surrogates in strings', { ключ: '\ud800', '🙂': 'ok' }],
    ['null, booleans, empty containers', { n: null, t: true, o: {}, a: [] }],
    ['a key of 256 characters', { ['k'.repeat(256)]: 1 }],
    ['an object created without a prototype', Object.assign(Object.create(null) as object, { a: 1 })],
  ])('accepts %s', (_name, value) => {
    expect(storableJsonIssue(value)).toBeUndefined();
  });

  it(`accepts ${storableJsonLimits.maxDepth} levels of objects and arrays, and refuses one more at its path`, () => {
    expect(storableJsonLimits.maxDepth).toBe(31);
    expect(storableJsonIssue(nested(31))).toBeUndefined();
    expect(storableJsonIssue(nested(32))).toEqual({
      path: Array.from({ length: 31 }, () => 'a'),
      message: 'nests deeper than 31 levels',
    });
    const deepArray = JSON.parse(`${'['.repeat(32)}${']'.repeat(32)}`) as unknown;
    expect(storableJsonIssue(deepArray)?.path).toHaveLength(31);
  });

  it('stops at the depth limit, so 100,000 levels cost no stack', () => {
    const deep = JSON.parse(`${'['.repeat(100_000)}${']'.repeat(100_000)}`) as unknown;
    expect(storableJsonIssue(deep)?.message).toContain('deeper');
  });

  it('accepts every JSON value fast-check makes of safe integers and ordinary doubles within the depth', () => {
    const storableDouble = fc
      .double({ noNaN: true, noDefaultInfinity: true, min: -1e100, max: 1e100 })
      .filter((x) => Math.abs(x) === 0 || (Math.abs(x) >= 1e-130 && (!Number.isInteger(x) || Number.isSafeInteger(x))));
    const value = fc.letrec((tie) => ({
      node: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.constant(null),
        fc.boolean(),
        fc.string(),
        storableDouble,
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(
          fc
            .string({ minLength: 1, maxLength: 10 })
            .filter((k) => !['__proto__', 'constructor', 'prototype'].includes(k)),
          tie('node'),
          { maxKeys: 3 },
        ),
      ),
    })).node;
    fc.assert(
      fc.property(
        fc.dictionary(
          fc
            .string({ minLength: 1, maxLength: 5 })
            .filter((k) => k !== '__proto__' && k !== 'constructor' && k !== 'prototype'),
          value,
        ),
        (object) => {
          expect(storableJsonIssue(object)).toBeUndefined();
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('storableNumberIssue', () => {
  it.each<[number, string]>([
    [1e-200, 'smaller in magnitude than 1e-130'],
    [5e-324, 'smaller in magnitude than 1e-130'],
    [-1e-131, 'smaller in magnitude than 1e-130'],
    [9.999999999999999e-131, 'smaller in magnitude than 1e-130'],
    [1e126, 'larger in magnitude than 9.9999999999999999999999999999999999999e+125'],
    // The largest storable number has no double: it parses to 1e126, which DynamoDB refuses.
    [Number(storableJsonLimits.maxMagnitude), 'larger in magnitude'],
    [-Number.MAX_VALUE, 'larger in magnitude'],
    [Number.NaN, 'finite'],
    [Number.NEGATIVE_INFINITY, 'finite'],
  ])('refuses %p', (value, message) => {
    expect(storableNumberIssue(value)).toContain(message);
  });

  it.each([0, -0, 1e-130, -1e-130, 0.25, 1, 2 ** 53, 1e21, 9.99e125, -9.999999999999998e125, 123.456e-100])(
    'accepts %p',
    (value) => {
      expect(storableNumberIssue(value)).toBeUndefined();
    },
  );

  it('agrees with the decimal range read from the text DynamoDB receives, for any double', () => {
    // The oracle: the exponent of the first significant digit, read by toExponential.
    const exponentOf = (x: number) => Number(Math.abs(x).toExponential().split('e')[1]);
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const storable = x === 0 || (exponentOf(x) >= -130 && exponentOf(x) <= 125);
        expect(storableNumberIssue(x) === undefined).toBe(storable);
      }),
      { numRuns: 2_000 },
    );
  });

  it('storableNumber() keeps the bounds chained on it', () => {
    const fraction = storableNumber().min(0).max(1);
    expect(fraction.safeParse(0.5).success).toBe(true);
    expect(fraction.safeParse(2).success).toBe(false);
    expect(fraction.safeParse(5e-324).error?.issues[0]?.message).toContain('smaller in magnitude');
  });
});

describe('storableJsonObjectSchema', () => {
  it('names the offending member in the issue path', () => {
    const result = schema.safeParse({ a: { b: 2 ** 60 } });
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]).toMatchObject({ path: ['a', 'b'], message: expect.stringContaining('2^53') });
  });

  it('sees an own __proto__ key as parsed, instead of letting it be stripped or become the prototype', () => {
    const result = schema.safeParse(JSON.parse('{"__proto__":{"admin":true}}'));
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.message).toContain('__proto__');
  });

  it.each([[[]], [null], ['text'], [1]])('refuses %p: not an object', (value) => {
    expect(schema.safeParse(value).success).toBe(false);
  });

  it('refuses more than its byte limit of JSON, and passes a storable object through unchanged', () => {
    expect(storableJsonObjectSchema(10).safeParse({ blob: 'x'.repeat(10) }).error?.issues[0]?.message).toBe(
      'must be at most 10 bytes of JSON',
    );
    const value = { map: 'harbor', n: [1, 2.5, { deep: true }] };
    expect(schema.parse(value)).toBe(value);
  });
});

describe('parseJsonBody', () => {
  it.each([
    ['{"__proto__":{}}', 'body.__proto__'],
    ['{"settings":{"a":[{"__proto__":1}]}}', 'body.settings.a.0.__proto__'],
    ['[[[{"x":{"__proto__":null}}]]]', 'body.0.0.0.x.__proto__'],
  ])('refuses %s naming %s', (text, field) => {
    expect(() => parseJsonBody(text)).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        details: { fields: [{ field, message: 'is a reserved key name' }] },
      }),
    );
  });

  it('refuses text that is not JSON with 400', () => {
    expect(() => parseJsonBody('{"a":')).toThrow(expect.objectContaining({ code: 'BAD_REQUEST' }));
  });

  it('walks 30,000 levels without recursion and finds a __proto__ at the bottom', () => {
    const text = `${'['.repeat(30_000)}{"__proto__":1}${']'.repeat(30_000)}`;
    expect(prototypeKeyPath(JSON.parse(text))).toHaveLength(30_001);
  });

  it.each([
    ['{"location":{"lat":1e-200,"lon":0}}', 'body.location.lat', 'smaller in magnitude'],
    ['{"cpu":0.5,"memory":5e-324}', 'body.memory', 'smaller in magnitude'],
    ['{"a":[1,{"b":-1e-131}]}', 'body.a.1.b', 'smaller in magnitude'],
    ['[1e126]', 'body.0', 'larger in magnitude'],
  ])('refuses %s: a number DynamoDB cannot store, naming %s', (text, field, message) => {
    expect(() => parseJsonBody(text)).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        message: expect.stringContaining(`Invalid body: ${field} is ${message}`),
        details: { fields: [{ field, message: expect.stringContaining(message) }] },
      }),
    );
  });

  it('returns every other JSON value as parsed', () => {
    const storable = (value: unknown): boolean =>
      typeof value === 'number'
        ? storableNumberIssue(value) === undefined
        : typeof value !== 'object' || value === null || Object.values(value).every(storable);
    fc.assert(
      fc.property(
        fc
          .jsonValue()
          .filter((value) => prototypeKeyPath(JSON.parse(JSON.stringify(value))) === undefined && storable(value)),
        (value) => {
          expect(parseJsonBody(JSON.stringify(value))).toEqual(JSON.parse(JSON.stringify(value)));
        },
      ),
      { numRuns: 300 },
    );
  });
});
