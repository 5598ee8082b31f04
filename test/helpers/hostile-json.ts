import fc from 'fast-check';

/**
 * JSON that `JSON.parse` accepts but DynamoDB cannot store exactly, for fuzzing every route:
 * integers beyond 2^53, magnitudes below DynamoDB's 1e-130 (down to 1e-300 and beyond), nesting
 * deeper than 31, empty keys and own `__proto__` / `constructor` keys at any depth. Values are
 * built with `JSON.parse`, so `__proto__` is an own key and `JSON.stringify` sends it as is.
 */
const key = fc.oneof(fc.constantFrom('map', 'mode', 'a'), fc.string({ minLength: 1, maxLength: 8 }));
const hostileNumber = fc.oneof(
  fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 80n }).map((n) => n.toString()),
  fc.bigInt({ min: -(2n ** 80n), max: -(2n ** 53n) - 1n }).map((n) => n.toString()),
  fc.integer({ min: 131, max: 320 }).map((exponent) => `1e-${exponent}`),
  fc.integer({ min: 131, max: 320 }).map((exponent) => `-4.2e-${exponent}`),
);
const hostileKey = fc.constantFrom('""', '"__proto__"', '"constructor"', '"prototype"');

/** One hostile member text: `"key": value`. */
const hostileMember = fc.oneof(
  fc.tuple(key, hostileNumber).map(([k, n]) => `${JSON.stringify(k)}:${n}`),
  fc.tuple(key, hostileNumber).map(([k, n]) => `${JSON.stringify(k)}:[1,${n}]`),
  fc
    .tuple(key, fc.integer({ min: 32, max: 200 }))
    .map(([k, depth]) => `${JSON.stringify(k)}:${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`),
  fc
    .tuple(key, fc.integer({ min: 32, max: 200 }))
    .map(([k, depth]) => `${JSON.stringify(k)}:${'['.repeat(depth)}${']'.repeat(depth)}`),
  fc.tuple(hostileKey, fc.jsonValue({ maxDepth: 1 })).map(([k, v]) => `${k}:${JSON.stringify(v)}`),
  fc.tuple(key, hostileKey).map(([k, hk]) => `${JSON.stringify(k)}:{${hk}:{"admin":true}}`),
);

/** A JSON object with at least one member DynamoDB cannot store exactly, among ordinary ones. */
export const hostileObject: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    fc.dictionary(key, fc.jsonValue({ maxDepth: 1 }), { maxKeys: 3 }),
    fc.array(hostileMember, { minLength: 1, maxLength: 3 }),
  )
  .map(([ordinary, members]) => {
    const ordinaryText = JSON.stringify(ordinary).slice(1, -1);
    return JSON.parse(`{${[ordinaryText, ...members].filter(Boolean).join(',')}}`) as Record<string, unknown>;
  });

/** A body with a hostile shape anywhere: at the top, or inside any field. */
export const hostileBody = (fields: readonly string[]): fc.Arbitrary<unknown> =>
  fc.oneof(
    hostileObject,
    fc.tuple(fc.constantFrom(...fields), hostileObject).map(([field, value]) => ({ [field]: value })),
  );

/** Path segments with a malformed percent escape. */
export const malformedSegment = fc.oneof(
  fc.constantFrom('%', '%%', '%zz', '%E0%A4%A', '%C3%28', '%ff', '%ED%A0%80', 'a%2'),
  fc.tuple(fc.stringMatching(/^[a-z0-9]{0,6}$/), fc.constantFrom('%', '%G1', '%c3')).map(([a, b]) => a + b),
);

/** A page token that decodes to something other than a key this API issued. */
export const hostilePageToken = fc
  .oneof(
    fc.constant({ pk: '', sk: '', gsi2pk: '', gsi2sk: '' }),
    fc.record({ pk: fc.string(), sk: fc.string(), gsi2pk: fc.string(), gsi2sk: fc.string() }),
    fc.jsonValue(),
  )
  .map((key) => Buffer.from(JSON.stringify(key) ?? 'null').toString('base64url'));
