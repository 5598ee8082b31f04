import { RequestInvalidError } from '../errors';
import { storableNumberIssue } from './storable-json';

/**
 * Parses a request body, refusing with a 400 that names the field any `__proto__` key and any
 * number DynamoDB cannot store, at any depth.
 *
 * `JSON.parse` keeps `"__proto__"` as an ordinary own key, but zod strips it from every
 * object and record it rebuilds, so `{"env": {"__proto__": …}}` would be silently accepted
 * as something else than what was sent. No field of this API may use that name, so the
 * edge refuses it once for every route. Numbers such as 1e-200 or 5e-324 pass any
 * `z.number()` bound yet make DynamoDB refuse the whole write (a 500 after the fact); every
 * number a body carries may end up stored, so the edge applies `storableNumberIssue` to all
 * of them, on every route, whatever its schema says. The walk is iterative: a body nested
 * thousands of levels deep (within the size limit) costs no stack.
 *
 * @throws RequestInvalidError 400 when the text is not JSON, holds a `__proto__` key or an unstorable number.
 * @example
 * parseJsonBody('{"settings":{"__proto__":{}}}'); // throws: body.settings.__proto__
 * parseJsonBody('{"location":{"lat":1e-200,"lon":0}}'); // throws: body.location.lat
 */
export function parseJsonBody(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RequestInvalidError('The request body is not valid JSON.');
  }
  const issue = bodyIssue(value);
  if (issue) {
    const field = ['body', ...issue.path].join('.');
    throw new RequestInvalidError(`Invalid body: ${field} ${issue.message}.`, [{ field, message: issue.message }]);
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
  const issue = bodyIssue(root, false);
  return issue ? issue.path : undefined;
}

/** The first `__proto__` key (and, when `numbers`, the first unstorable number) in a parsed JSON value. */
function bodyIssue(root: unknown, numbers = true): { path: (string | number)[]; message: string } | undefined {
  // Each entry points at its parent instead of copying its path: a deep body stays linear.
  const pending: Visit[] = [{ value: root }];
  for (let visit = pending.pop(); visit; visit = pending.pop()) {
    const { value } = visit;
    if (Array.isArray(value)) {
      value.forEach((item, index) => pending.push({ value: item, key: index, parent: visit }));
    } else if (typeof value === 'object' && value !== null) {
      if (Object.hasOwn(value, '__proto__')) {
        return { path: [...pathOf(visit), '__proto__'], message: 'is a reserved key name' };
      }
      for (const [key, item] of Object.entries(value)) pending.push({ value: item, key, parent: visit });
    } else if (numbers && typeof value === 'number') {
      const message = storableNumberIssue(value);
      if (message) return { path: pathOf(visit), message };
    }
  }
  return undefined;
}

function pathOf(visit: Visit): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at: Visit | undefined = visit; at?.key !== undefined; at = at.parent) path.unshift(at.key);
  return path;
}
