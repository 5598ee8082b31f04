import { RequestInvalidError } from '../errors';

/**
 * Parses a request body, refusing any `__proto__` key at any depth with a 400 that names it.
 *
 * `JSON.parse` keeps `"__proto__"` as an ordinary own key, but zod strips it from every
 * object and record it rebuilds, so `{"env": {"__proto__": …}}` would be silently accepted
 * as something else than what was sent. No field of this API may use that name, so the
 * edge refuses it once for every route. The walk is iterative: a body nested thousands of
 * levels deep (within the size limit) costs no stack.
 *
 * @throws RequestInvalidError 400 when the text is not JSON or holds a `__proto__` key.
 * @example
 * parseJsonBody('{"settings":{"__proto__":{}}}'); // throws: body.settings.__proto__
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RequestInvalidError('The request body is not valid JSON.');
  }
  const path = prototypeKeyPath(value);
  if (path) {
    const field = ['body', ...path].join('.');
    throw new RequestInvalidError(`Invalid body: ${field} is a reserved key name.`, [
      { field, message: 'is a reserved key name' },
    ]);
  }
  return value;
}

interface Visit {
  readonly value: unknown;
  readonly key?: string | number;
  readonly parent?: Visit;
}

/** Path to the first own `__proto__` key in a parsed JSON value, if any. */
export function prototypeKeyPath(root: unknown): (string | number)[] | undefined {
  // Each entry points at its parent instead of copying its path: a deep body stays linear.
  const pending: Visit[] = [{ value: root }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { value } = visit;
    if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, key: index, parent: visit }));
    } else if (typeof value === 'object' && value !== null) {
      if (Object.hasOwn(value, '__proto__')) return [...pathOf(visit), '__proto__'];
      for (const [key, item] of Object.entries(value)) pending.push({ value: item, key, parent: visit });
    }
  }
  return undefined;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}
