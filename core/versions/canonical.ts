import { componentNameSchema, hash64 } from './protocol';

/**
 * A network component's canonical text and hash (docs/versions.md "The canonical text"). The
 * text keeps only what decides the bytes two builds exchange: names, types, roles, reliability
 * and order where the engine numbers things by declaration order. It is specified line by line
 * so a C++ or C# build step can produce the same bytes without a JSON or XML canonicalizer.
 */

/** A component as its source file declares it (JSON or AutoComponent XML), before normalizing. */
export interface ComponentInput {
  readonly name: string;
  readonly namespace?: string;
  readonly rpcs: readonly RpcInput[];
  readonly properties: readonly PropertyInput[];
  readonly inputs: readonly TypedInput[];
  readonly archetypes: readonly ArchetypeInput[];
}

export interface TypedInput {
  readonly name: string;
  readonly type: string;
}

export interface RpcInput {
  readonly name: string;
  readonly invokeFrom?: string;
  readonly handleOn?: string;
  readonly reliable?: boolean;
  readonly params: readonly TypedInput[];
}

export interface PropertyInput extends TypedInput {
  readonly container?: string;
  readonly count?: string;
  readonly replicateFrom?: string;
  readonly replicateTo?: string;
  readonly rewindable?: boolean;
  readonly predictable?: boolean;
}

export interface ArchetypeInput extends TypedInput {
  readonly container?: string;
  readonly count?: string;
}

/** A component whose every value is normalized and checked: what the canonical text is written from. */
export interface ComponentDefinition {
  /** `Namespace::Name`, or `Name` without a namespace. */
  readonly name: string;
  readonly text: string;
  readonly hash: string;
}

/** A component file that cannot be hashed: names the file and the element, never a stack trace. */
export class ComponentDefinitionError extends Error {
  constructor(
    readonly source: string,
    readonly element: string,
    readonly problem: string,
  ) {
    super(`${source}: ${element}: ${problem}`);
    this.name = 'ComponentDefinitionError';
  }
}

/** The multiplayer roles an RPC or a property may name (O3DE's NetEntityRole). */
const roles = new Set(['Authority', 'Autonomous', 'Client', 'Server']);
const containers = new Set(['Object', 'Array', 'Vector']);
const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
const identifierChar = /[A-Za-z0-9_]/;
const printableAscii = /^[\x20-\x7e]*$/;

/**
 * Removes every run of whitespace (space, tab, CR, LF), except that a run between two identifier
 * characters becomes one space: `unsigned   int` → `unsigned int`, `AZStd::fixed_vector< int , 8 >`
 * → `AZStd::fixed_vector<int,8>`. Layout then never changes a hash; a token boundary always does.
 */
export function normalizeValue(value: string): string {
  return value.replace(/[ \t\r\n]+/g, (run: string, offset: number, whole: string) => {
    const before = whole[offset - 1];
    const after = whole[offset + run.length];
    return before !== undefined && after !== undefined && identifierChar.test(before) && identifierChar.test(after)
      ? ' '
      : '';
  });
}

/** Reads one component's values as the canonical text needs them; throws what is wrong, where. */
class Reader {
  constructor(
    private readonly source: string,
    private readonly where: string,
  ) {}

  at(element: string): Reader {
    return new Reader(this.source, `${this.where} > ${element}`);
  }

  fail(problem: string): never {
    throw new ComponentDefinitionError(this.source, this.where, problem);
  }

  text(field: string, value: string | undefined): string {
    const normalized = normalizeValue(value ?? '');
    if (!printableAscii.test(normalized)) this.fail(`${field} must be printable ASCII, got ${JSON.stringify(value)}`);
    return normalized;
  }

  required(field: string, value: string | undefined): string {
    const text = this.text(field, value);
    if (text === '') this.fail(`${field} is missing or empty`);
    return text;
  }

  name(value: string | undefined): string {
    const text = this.required('name', value);
    if (!identifier.test(text)) this.fail(`name ${JSON.stringify(text)} is not an identifier ([A-Za-z_][A-Za-z0-9_]*)`);
    return text;
  }

  role(field: string, value: string | undefined): string {
    const text = this.text(field, value);
    if (text !== '' && !roles.has(text)) this.fail(`${field} must be one of ${[...roles].join(', ')}, got "${text}"`);
    return text;
  }

  /** Container and count as one pair: a count means something only for an Array or a Vector. */
  container(value: string | undefined, count: string | undefined): [string, string] {
    const container = this.text('container', value) || 'Object';
    if (!containers.has(container)) this.fail(`container must be Object, Array or Vector, got "${container}"`);
    if (container === 'Object') return [container, ''];
    return [container, this.required('count (an Array or a Vector needs one)', count)];
  }
}

const flag = (value: boolean | undefined): string => (value === true ? 'true' : 'false');
const line = (...fields: string[]): string => `${fields.join('\t')}\n`;
const byteOrder = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Refuses two members of one kind with one name: the engine would not build it either. */
function refuseDuplicates(reader: Reader, kind: string, names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    if (seen.has(name)) reader.fail(`two ${kind}s are named "${name}"`);
    seen.add(name);
  }
}

function qualifiedName(input: ComponentInput, source: string): string {
  const reader = new Reader(source, 'component');
  const name = reader.name(input.name);
  const namespace = reader.text('namespace', input.namespace);
  const qualified = namespace === '' ? name : `${namespace}::${name}`;
  if (!componentNameSchema.safeParse(qualified).success)
    reader.fail(`"${qualified}" is not a qualified name (identifiers joined by ::, at most 128 characters)`);
  return qualified;
}

function rpcLines(reader: Reader, rpcs: readonly RpcInput[]): string {
  refuseDuplicates(
    reader,
    'RPC',
    rpcs.map((rpc) => normalizeValue(rpc.name)),
  );
  return rpcs
    .map((rpc, index) => {
      const at = reader.at(`rpc ${index + 1} "${rpc.name}"`);
      const head = line(
        'rpc',
        at.name(rpc.name),
        at.role('invokeFrom', rpc.invokeFrom),
        at.role('handleOn', rpc.handleOn),
        flag(rpc.reliable),
      );
      refuseDuplicates(
        at,
        'param',
        rpc.params.map((param) => normalizeValue(param.name)),
      );
      const params = rpc.params.map((param, i) => {
        const p = at.at(`param ${i + 1} "${param.name}"`);
        return line('param', p.name(param.name), p.required('type', param.type));
      });
      return head + params.join('');
    })
    .join('');
}

function propertyLines(reader: Reader, properties: readonly PropertyInput[]): string {
  refuseDuplicates(
    reader,
    'property',
    properties.map((property) => normalizeValue(property.name)),
  );
  return properties
    .map((property, index) => {
      const at = reader.at(`property ${index + 1} "${property.name}"`);
      const [container, count] = at.container(property.container, property.count);
      return line(
        'property',
        at.name(property.name),
        at.required('type', property.type),
        container,
        count,
        at.role('replicateFrom', property.replicateFrom),
        at.role('replicateTo', property.replicateTo),
        flag(property.rewindable),
        flag(property.predictable),
      );
    })
    .join('');
}

function inputLines(reader: Reader, inputs: readonly TypedInput[]): string {
  refuseDuplicates(
    reader,
    'input',
    inputs.map((input) => normalizeValue(input.name)),
  );
  return inputs
    .map((input, index) => {
      const at = reader.at(`input ${index + 1} "${input.name}"`);
      return line('input', at.name(input.name), at.required('type', input.type));
    })
    .join('');
}

/** Archetype properties are set in the editor and never replicated: their order carries no meaning. */
function archetypeLines(reader: Reader, archetypes: readonly ArchetypeInput[]): string {
  refuseDuplicates(
    reader,
    'archetype',
    archetypes.map((archetype) => normalizeValue(archetype.name)),
  );
  return archetypes
    .map((archetype, index) => {
      const at = reader.at(`archetype ${index + 1} "${archetype.name}"`);
      const [container, count] = at.container(archetype.container, archetype.count);
      return {
        name: at.name(archetype.name),
        text: line('archetype', at.name(archetype.name), at.required('type', archetype.type), container, count),
      };
    })
    .sort((a, b) => byteOrder(a.name, b.name))
    .map((archetype) => archetype.text)
    .join('');
}

/**
 * A component's canonical text (docs/versions.md "The canonical text"): `component`, then each
 * RPC with its params, each network property, each network input (all in declared order), then
 * each archetype property by name. `source` names the file in errors.
 */
export function canonicalTextOf(input: ComponentInput, source: string): string {
  const name = qualifiedName(input, source);
  const reader = new Reader(source, `component "${name}"`);
  return (
    line('component', name) +
    rpcLines(reader, input.rpcs) +
    propertyLines(reader, input.properties) +
    inputLines(reader, input.inputs) +
    archetypeLines(reader, input.archetypes)
  );
}

/** The component's name, canonical text and hash: the first 8 bytes of the text's SHA-256. */
export function defineComponent(input: ComponentInput, source: string): ComponentDefinition {
  const text = canonicalTextOf(input, source);
  return { name: qualifiedName(input, source), text, hash: hash64(text) };
}
