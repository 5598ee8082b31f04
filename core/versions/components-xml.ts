import { SaxesParser } from 'saxes';
import {
  ComponentDefinitionError,
  type ArchetypeInput,
  type ComponentInput,
  type PropertyInput,
  type RpcInput,
  type TypedInput,
} from './canonical';

/**
 * O3DE multiplayer AutoComponent XML (`*.AutoComponent.xml`, docs/versions.md "Component files"):
 * the file the engine generates a component's network code from, so the hash is taken of the
 * very declaration both builds were compiled from. A conforming XML parser reads it, so line
 * endings, attribute order, comments and entity spelling never reach the hash.
 */

interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  readonly line: number;
}

/** Elements that carry no wire meaning: the C++ includes and the sibling-component relations. */
const ignored = new Set(['Include', 'ComponentRelation']);

function parseTree(text: string, source: string): XmlElement {
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  parser.on('opentag', (tag) => {
    const element: XmlElement = { name: tag.name, attributes: { ...tag.attributes }, children: [], line: parser.line };
    const parent = stack.at(-1);
    if (parent) parent.children.push(element);
    else root = element;
    stack.push(element);
  });
  parser.on('closetag', () => void stack.pop());
  try {
    parser.write(text).close();
  } catch (error) {
    throw new ComponentDefinitionError(source, '(file)', `not well-formed XML: ${(error as Error).message}`);
  }
  if (!root) throw new ComponentDefinitionError(source, '(file)', 'holds no element');
  return root;
}

/** XML booleans as AutoComponent files write them: `true`/`false` in any case; absent is false. */
function flag(element: XmlElement, attribute: string, source: string): boolean {
  const value = element.attributes[attribute];
  if (value === undefined) return false;
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  throw new ComponentDefinitionError(source, where(element), `${attribute} must be true or false, got "${value}"`);
}

function where(element: XmlElement): string {
  const name = element.attributes.Name;
  return `<${element.name}${name === undefined ? '' : ` Name="${name}"`}> (line ${element.line})`;
}

function typed(element: XmlElement): TypedInput {
  return { name: element.attributes.Name ?? '', type: element.attributes.Type ?? '' };
}

function rpcOf(element: XmlElement, source: string): RpcInput {
  const params = element.children.map((child) => {
    if (child.name !== 'Param')
      throw new ComponentDefinitionError(source, where(child), 'a RemoteProcedure may only hold Param elements');
    return typed(child);
  });
  const { InvokeFrom, HandleOn } = element.attributes;
  return {
    name: element.attributes.Name ?? '',
    ...(InvokeFrom === undefined ? {} : { invokeFrom: InvokeFrom }),
    ...(HandleOn === undefined ? {} : { handleOn: HandleOn }),
    reliable: flag(element, 'IsReliable', source),
    params,
  };
}

function sized(element: XmlElement): { container?: string; count?: string } {
  const { Container, Count } = element.attributes;
  return {
    ...(Container === undefined ? {} : { container: Container }),
    ...(Count === undefined ? {} : { count: Count }),
  };
}

function propertyOf(element: XmlElement, source: string): PropertyInput {
  const { ReplicateFrom, ReplicateTo } = element.attributes;
  return {
    ...typed(element),
    ...sized(element),
    ...(ReplicateFrom === undefined ? {} : { replicateFrom: ReplicateFrom }),
    ...(ReplicateTo === undefined ? {} : { replicateTo: ReplicateTo }),
    rewindable: flag(element, 'IsRewindable', source),
    predictable: flag(element, 'IsPredictable', source),
  };
}

/** The one component an AutoComponent XML file declares; `source` names the file in errors. */
export function componentOfXml(text: string, source: string): ComponentInput {
  const root = parseTree(text, source);
  if (root.name !== 'Component')
    throw new ComponentDefinitionError(source, where(root), 'the root element must be <Component>');
  const rpcs: RpcInput[] = [];
  const properties: PropertyInput[] = [];
  const inputs: TypedInput[] = [];
  const archetypes: ArchetypeInput[] = [];
  for (const child of root.children) {
    if (child.name === 'RemoteProcedure') rpcs.push(rpcOf(child, source));
    else if (child.name === 'NetworkProperty') properties.push(propertyOf(child, source));
    else if (child.name === 'NetworkInput') inputs.push(typed(child));
    else if (child.name === 'ArchetypeProperty') archetypes.push({ ...typed(child), ...sized(child) });
    else if (!ignored.has(child.name))
      // An element this reader does not know might carry wire meaning: refusing beats a hash that misses it.
      throw new ComponentDefinitionError(source, where(child), 'is not an AutoComponent element this version knows');
  }
  const { Name, Namespace } = root.attributes;
  return {
    name: Name ?? '',
    ...(Namespace === undefined ? {} : { namespace: Namespace }),
    rpcs,
    properties,
    inputs,
    archetypes,
  };
}
