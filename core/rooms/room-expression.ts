import { isDeepStrictEqual } from 'node:util';

/**
 * The conditions and changes of every write to a room item, as data. The DynamoDB store
 * compiles them into a ConditionExpression and an UpdateExpression (`compileWrite`); the
 * in-memory store evaluates the same data on a stored item (`holds`, `applyChange`). One
 * definition, two readers: the fake cannot accept a write the table would refuse, or the
 * other way round, without a contract test seeing it.
 */
export type AttributePath = readonly string[];

type Operand = { readonly path: AttributePath } | { readonly value: unknown };

export type Condition =
  | { readonly kind: 'exists'; readonly path: AttributePath }
  | { readonly kind: 'absent'; readonly path: AttributePath }
  | {
      readonly kind: 'compare';
      readonly op: '=' | '<' | '>' | '>=';
      readonly path: AttributePath;
      readonly to: Operand;
    }
  | { readonly kind: 'in'; readonly path: AttributePath; readonly values: readonly unknown[] }
  /** The map (or list, or string) at the path holds at most `max` entries; false when missing. */
  | { readonly kind: 'sizeAtMost'; readonly path: AttributePath; readonly max: number }
  | { readonly kind: 'all' | 'any'; readonly of: readonly Condition[] };

/** What one write does to the item: attributes set, numbers added to, attributes removed. */
export interface Change {
  readonly set?: readonly (readonly [AttributePath, unknown])[];
  readonly add?: readonly (readonly [AttributePath, number])[];
  readonly remove?: readonly AttributePath[];
  /**
   * Attributes assigned to themselves: a write that answers only what it updated
   * (`UPDATED_NEW`) then returns them too, without a read.
   */
  readonly echo?: readonly AttributePath[];
  /**
   * Attributes set to another attribute's value before the write plus a number (DynamoDB reads
   * every operand of an update on the item as it was): `[target, source, plus]`.
   */
  readonly derive?: readonly (readonly [AttributePath, AttributePath, number])[];
}

export const exists = (...path: string[]): Condition => ({ kind: 'exists', path });
export const absent = (...path: string[]): Condition => ({ kind: 'absent', path });
export const equals = (path: AttributePath, value: unknown): Condition => ({
  kind: 'compare',
  op: '=',
  path,
  to: { value },
});
export const oneOf = (path: AttributePath, values: readonly unknown[]): Condition => ({ kind: 'in', path, values });
export const allOf = (...of: Condition[]): Condition => ({ kind: 'all', of });
export const anyOf = (...of: Condition[]): Condition => ({ kind: 'any', of });

/** Two changes as one write (the paths they touch must not overlap: DynamoDB refuses that). */
export function mergeChanges(...changes: Change[]): Change {
  return {
    set: changes.flatMap((c) => c.set ?? []),
    add: changes.flatMap((c) => c.add ?? []),
    remove: changes.flatMap((c) => c.remove ?? []),
    echo: changes.flatMap((c) => c.echo ?? []),
    derive: changes.flatMap((c) => c.derive ?? []),
  };
}

// --- DynamoDB -------------------------------------------------------------------------

export interface CompiledWrite {
  readonly ConditionExpression: string;
  readonly UpdateExpression?: string;
  readonly ExpressionAttributeNames: Record<string, string>;
  readonly ExpressionAttributeValues?: Record<string, unknown>;
}

/** Placeholders for names and values, each name once whatever how often it appears. */
class Placeholders {
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};
  private readonly byName = new Map<string, string>();
  private valueCount = 0;

  path(path: AttributePath): string {
    return path
      .map((segment) => {
        let placeholder = this.byName.get(segment);
        if (!placeholder) {
          placeholder = `#n${this.byName.size}`;
          this.byName.set(segment, placeholder);
          this.names[placeholder] = segment;
        }
        return placeholder;
      })
      .join('.');
  }

  value(value: unknown): string {
    const placeholder = `:v${this.valueCount++}`;
    this.values[placeholder] = value;
    return placeholder;
  }

  operand(operand: Operand): string {
    return 'path' in operand ? this.path(operand.path) : this.value(operand.value);
  }
}

function conditionText(condition: Condition, p: Placeholders): string {
  switch (condition.kind) {
    case 'exists':
      return `attribute_exists(${p.path(condition.path)})`;
    case 'absent':
      return `attribute_not_exists(${p.path(condition.path)})`;
    case 'compare':
      return `${p.path(condition.path)} ${condition.op} ${p.operand(condition.to)}`;
    case 'in':
      return `${p.path(condition.path)} IN (${condition.values.map((v) => p.value(v)).join(', ')})`;
    case 'sizeAtMost':
      return `size(${p.path(condition.path)}) <= ${p.value(condition.max)}`;
    case 'all':
    case 'any':
      return `(${condition.of.map((c) => conditionText(c, p)).join(condition.kind === 'all' ? ' AND ' : ' OR ')})`;
  }
}

function updateText(change: Change, p: Placeholders): string | undefined {
  const set = [
    ...(change.set ?? []).map(([path, value]) => `${p.path(path)} = ${p.value(value)}`),
    ...(change.add ?? []).map(([path, n]) => `${p.path(path)} = ${p.path(path)} + ${p.value(n)}`),
    ...(change.echo ?? []).map((path) => `${p.path(path)} = ${p.path(path)}`),
    ...(change.derive ?? []).map(([path, from, n]) => `${p.path(path)} = ${p.path(from)} + ${p.value(n)}`),
  ];
  const remove = (change.remove ?? []).map((path) => p.path(path));
  const clauses = [
    ...(set.length > 0 ? [`SET ${set.join(', ')}`] : []),
    ...(remove.length > 0 ? [`REMOVE ${remove.join(', ')}`] : []),
  ];
  return clauses.length > 0 ? clauses.join(' ') : undefined;
}

/** The expressions of one conditional write (a delete has no change). */
export function compileWrite(condition: Condition, change?: Change): CompiledWrite {
  const p = new Placeholders();
  const ConditionExpression = conditionText(condition, p);
  const UpdateExpression = change ? updateText(change, p) : undefined;
  return {
    ConditionExpression,
    ...(UpdateExpression === undefined ? {} : { UpdateExpression }),
    ExpressionAttributeNames: p.names,
    ...(Object.keys(p.values).length > 0 ? { ExpressionAttributeValues: p.values } : {}),
  };
}

// --- in memory ------------------------------------------------------------------------

export type Item = Record<string, unknown>;

function valueAt(item: Item, path: AttributePath): unknown {
  let node: unknown = item;
  for (const segment of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
    node = (node as Item)[segment];
  }
  return node;
}

/** DynamoDB's `size()`: entries of a map or list, characters of a string. */
function sizeOf(value: unknown): number | undefined {
  if (typeof value === 'string' || Array.isArray(value)) return value.length;
  if (value !== null && typeof value === 'object') return Object.keys(value).length;
  return undefined;
}

/** DynamoDB's ordering: numbers with numbers, strings with strings; anything else is false. */
function compare(op: '=' | '<' | '>' | '>=', left: unknown, right: unknown): boolean {
  if (left === undefined || right === undefined) return false;
  if (op === '=') return isDeepStrictEqual(left, right);
  const comparable =
    (typeof left === 'number' && typeof right === 'number') || (typeof left === 'string' && typeof right === 'string');
  if (!comparable) return false;
  const [l, r] = [left as number | string, right as number | string];
  return op === '<' ? l < r : op === '>' ? l > r : l >= r;
}

/** Whether the condition holds on the item as DynamoDB would judge it. */
export function holds(condition: Condition, item: Item): boolean {
  switch (condition.kind) {
    case 'exists':
      return valueAt(item, condition.path) !== undefined;
    case 'absent':
      return valueAt(item, condition.path) === undefined;
    case 'compare': {
      const right = 'path' in condition.to ? valueAt(item, condition.to.path) : condition.to.value;
      return compare(condition.op, valueAt(item, condition.path), right);
    }
    case 'in': {
      const value = valueAt(item, condition.path);
      return value !== undefined && condition.values.some((v) => isDeepStrictEqual(v, value));
    }
    case 'sizeAtMost': {
      const size = sizeOf(valueAt(item, condition.path));
      return size !== undefined && size <= condition.max;
    }
    case 'all':
      return condition.of.every((c) => holds(c, item));
    case 'any':
      return condition.of.some((c) => holds(c, item));
  }
}

/** The parent map of a path; like DynamoDB, a write under a missing map is an error. */
function parentOf(item: Item, path: AttributePath): Item {
  const parent = valueAt(item, path.slice(0, -1));
  if (parent === null || typeof parent !== 'object' || Array.isArray(parent)) {
    throw new Error(`The document path ${path.join('.')} provided in the update expression is invalid for update`);
  }
  return parent as Item;
}

/** The item after the change (a copy; the argument is left as it was). */
export function applyChange(item: Item, change: Change): Item {
  const next = structuredClone(item);
  for (const [path, from, n] of change.derive ?? []) {
    const source = valueAt(item, from);
    if (typeof source !== 'number') throw new Error(`An operand in the update expression is not a number`);
    parentOf(next, path)[path[path.length - 1]!] = source + n;
  }
  for (const [path, value] of change.set ?? []) parentOf(next, path)[path[path.length - 1]!] = structuredClone(value);
  for (const [path, n] of change.add ?? []) {
    const current = valueAt(next, path);
    if (typeof current !== 'number') throw new Error(`An operand in the update expression is not a number`);
    parentOf(next, path)[path[path.length - 1]!] = current + n;
  }
  for (const path of change.remove ?? []) {
    const parent = valueAt(next, path.slice(0, -1));
    if (parent !== null && typeof parent === 'object') delete (parent as Item)[path[path.length - 1]!];
  }
  return next;
}

/**
 * What a write answers with `UPDATED_NEW`: only the attributes it set, added to or echoed, as
 * they are after it (nested paths keep their enclosing maps).
 */
export function updatedPart(item: Item, change: Change): Item {
  const paths = [
    ...(change.set ?? []).map(([path]) => path),
    ...(change.add ?? []).map(([path]) => path),
    ...(change.echo ?? []),
    ...(change.derive ?? []).map(([path]) => path),
  ];
  const part: Item = {};
  for (const path of paths) {
    const value = valueAt(item, path);
    if (value === undefined) continue;
    let node = part;
    for (const segment of path.slice(0, -1)) node = (node[segment] ??= {}) as Item;
    node[path[path.length - 1]!] = structuredClone(value);
  }
  return part;
}
