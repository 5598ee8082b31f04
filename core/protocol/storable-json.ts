import * as z from 'zod';

/**
 * JSON that DynamoDB stores exactly and every reader parses back to the same value.
 *
 * `JSON.parse` accepts shapes that cannot be stored or round-tripped: integers beyond 2^53
 * (already rounded when parsed), numbers outside DynamoDB's range (1e-130 … 9.9e125),
 * keys that are empty or that name an object's prototype, and nesting deep enough to
 * exhaust a recursive marshaller. Every object a caller or a game server hands us that we
 * store (room settings, criteria, server settings, `inited` settings, custom properties)
 * passes through here, so bad input is a 400 or a JSON-RPC -32602 naming the field, never
 * a 500 from the store.
 */
export const storableJsonLimits = {
  /**
   * Levels of objects and arrays, counting the checked object itself. DynamoDB refuses an item
   * nested 32 levels deep ("Nesting Levels have exceeded supported limits"), and the item is
   * one level: an attribute value may hold 31 (measured on DynamoDB Local 1.25).
   */
  maxDepth: 31,
  maxKeyLength: 256,
  /**
   * DynamoDB's number range, as decimal text: smaller magnitudes underflow, larger overflow.
   * Text, because the largest is no double: it parses to 1e126, which DynamoDB refuses.
   */
  minMagnitude: '1e-130',
  maxMagnitude: '9.9999999999999999999999999999999999999e+125',
  /** DynamoDB keeps at most 38 significant digits of a number. */
  maxSignificantDigits: 38,
} as const;

/** Decimal exponents of the smallest and the largest magnitude DynamoDB stores (1e-130, 9.99…e125). */
const storableExponents = { min: -130, max: 125 } as const;

/**
 * Why DynamoDB would refuse to store `value`, or undefined when it stores it exactly: the one
 * rule for every number a caller or a game server hands us. DynamoDB reads the number as the
 * decimal text the SDK sends (`String(value)`: "1e-200", "5e-324"), so the rule reads that
 * text too, not the double: no double comparison can tell 1e126 (refused) from the largest
 * storable number, which rounds to it.
 *
 * @example
 * storableNumberIssue(0.25);   // undefined
 * storableNumberIssue(5e-324); // 'is smaller in magnitude than 1e-130 and cannot be stored'
 */
export function storableNumberIssue(value: number): string | undefined {
  if (!Number.isFinite(value)) return 'must be a finite number';
  if (value === 0) return undefined;
  const decimal = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(value)));
  if (!decimal) return 'must be a finite number';
  const [, whole = '', fraction = '', exponent = '0'] = decimal;
  const digits = `${whole}${fraction}`;
  const leadingZeros = digits.length - digits.replace(/^0+/, '').length;
  // The decimal exponent of the first significant digit: 1234.5 → 3, 0.00123 → -3, 5e-324 → -324.
  const magnitudeExponent = whole.length - 1 - leadingZeros + Number(exponent);
  if (magnitudeExponent < storableExponents.min) {
    return `is smaller in magnitude than ${storableJsonLimits.minMagnitude} and cannot be stored`;
  }
  if (magnitudeExponent > storableExponents.max) {
    return `is larger in magnitude than ${storableJsonLimits.maxMagnitude} and cannot be stored`;
  }
  if (digits.replace(/^0+/, '').replace(/0+$/, '').length > storableJsonLimits.maxSignificantDigits) {
    return `has more than ${storableJsonLimits.maxSignificantDigits} significant digits and cannot be stored`;
  }
  return undefined;
}

/**
 * A number DynamoDB stores exactly (`storableNumberIssue`), for schemas of stored fields;
 * chain bounds as on `z.number()`.
 *
 * @example
 * const lat = storableNumber().min(-90).max(90);
 */
export function storableNumber() {
  return z.number().superRefine((value, ctx) => {
    const issue = storableNumberIssue(value);
    if (issue) ctx.addIssue({ code: 'custom', message: issue });
  });
}

/** Keys that name an object's prototype machinery: refused wherever a client picks key names. */
export const reservedJsonKeys: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

export interface StorableJsonIssue {
  /** Path from the checked value (keys and array indexes). */
  readonly path: (string | number)[];
  readonly message: string;
}

/** The first reason a value cannot be stored exactly, or undefined when it can. */
export function storableJsonIssue(
  value: unknown,
  path: (string | number)[] = [],
  depth = 0,
): StorableJsonIssue | undefined {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return undefined;
  if (typeof value === 'number') return numberIssue(value, path);
  // Checked before descending, so even a body nested thousands of levels deep costs 31 frames.
  if (typeof value === 'object' && depth >= storableJsonLimits.maxDepth) {
    return { path, message: `nests deeper than ${storableJsonLimits.maxDepth} levels` };
  }
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const issue = storableJsonIssue(item, [...path, index], depth + 1);
      if (issue) return issue;
    }
    return undefined;
  }
  if (typeof value === 'object') {
    if (Object.getPrototypeOf(value) !== Object.prototype && Object.getPrototypeOf(value) !== null) {
      return { path, message: 'must be plain JSON' };
    }
    for (const key of Object.keys(value)) {
      if (key.length === 0) return { path, message: 'has an empty key' };
      if (key.length > storableJsonLimits.maxKeyLength) {
        return { path, message: `has a key longer than ${storableJsonLimits.maxKeyLength} characters` };
      }
      if (reservedJsonKeys.has(key)) return { path, message: `has the reserved key '${key}'` };
      const issue = storableJsonIssue((value as Record<string, unknown>)[key], [...path, key], depth + 1);
      if (issue) return issue;
    }
    // `JSON.parse` makes `__proto__` an own key, which `Object.keys` lists; this catches objects built otherwise.
    if (Object.hasOwn(value, '__proto__')) return { path, message: "has the reserved key '__proto__'" };
    return undefined;
  }
  return { path, message: 'must be JSON' };
}

function numberIssue(value: number, path: (string | number)[]): StorableJsonIssue | undefined {
  if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
    return { path, message: 'is an integer beyond ±2^53 and cannot be kept exactly; send it as a string' };
  }
  const issue = storableNumberIssue(value);
  return issue ? { path, message: issue } : undefined;
}

/**
 * A JSON object whose every member can be stored exactly, at most `maxBytes` of JSON.
 * Failures carry the path of the offending member, so a 400 names the field.
 *
 * The check runs on the value exactly as `JSON.parse` made it, and the value passes through
 * uncopied: a `z.record` would rebuild the object and turn an own `__proto__` key into a
 * prototype, silently dropping it instead of refusing it.
 */
export function storableJsonObjectSchema(maxBytes: number) {
  return z
    .custom<Record<string, unknown>>(
      (value) => typeof value === 'object' && value !== null && !Array.isArray(value),
      'must be a JSON object',
    )
    .meta({
      override: {
        type: 'object',
        additionalProperties: true,
        description: `Any JSON object of at most ${maxBytes} bytes that DynamoDB stores exactly: numbers are safe integers or finite with magnitude between ${storableJsonLimits.minMagnitude} and ${storableJsonLimits.maxMagnitude}, at most ${storableJsonLimits.maxDepth} levels of nesting, keys non-empty, at most ${storableJsonLimits.maxKeyLength} characters and never __proto__, constructor or prototype.`,
      },
    })
    .superRefine((value, ctx) => {
      const issue = storableJsonIssue(value);
      if (issue) {
        ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message });
        return;
      }
      if (Buffer.byteLength(JSON.stringify(value)) > maxBytes) {
        ctx.addIssue({ code: 'custom', message: `must be at most ${maxBytes} bytes of JSON` });
      }
    });
}
