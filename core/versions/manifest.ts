import { readFile } from 'node:fs/promises';
import * as z from 'zod';
import { ComponentDefinitionError, defineComponent, type ComponentDefinition } from './canonical';
import { componentsOfJson } from './components-json';
import { componentOfXml } from './components-xml';
import { maxComponents, protocolSchema, setHashOf, type Protocol } from './protocol';

/**
 * A build's manifest (docs/versions.md "The manifest"): the `protocol` object a client sends with
 * joins and a game server with `inited`, made from the build's component files.
 */

/** A manifest always says when its build was made, so a mismatch can tell which side is newer. */
export interface Manifest extends Protocol {
  readonly hash: string;
  readonly components: Readonly<Record<string, string>>;
  readonly builtAt: string;
}

const builtAtSchema = z.iso.datetime({ offset: true });

/** A component file's definitions: `.xml` is AutoComponent XML, `.json` the JSON form. */
export function definitionsOfText(text: string, source: string): ComponentDefinition[] {
  if (/\.xml$/i.test(source)) return [defineComponent(componentOfXml(text, source), source)];
  if (/\.json$/i.test(source)) return componentsOfJson(text, source).map((input) => defineComponent(input, source));
  throw new ComponentDefinitionError(source, '(file)', 'must end in .json or .xml (AutoComponent XML)');
}

/** Every component the files declare, in the order given. */
export async function definitionsOfFiles(paths: readonly string[]): Promise<ComponentDefinition[]> {
  const definitions: ComponentDefinition[] = [];
  for (const path of paths) {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new ComponentDefinitionError(
        path,
        '(file)',
        `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    definitions.push(...definitionsOfText(text, path));
  }
  return definitions;
}

/**
 * The manifest of a build's components. Two components with one name are refused: the set hash
 * could keep only one of them. `builtAt` defaults to now.
 *
 * @example
 * protocolOf(await definitionsOfFiles(['game/components.json']), '2025-01-01T00:00:00Z');
 */
export function protocolOf(
  definitions: readonly ComponentDefinition[],
  builtAt: string = new Date().toISOString(),
): Manifest {
  if (!builtAtSchema.safeParse(builtAt).success)
    throw new ComponentDefinitionError('builtAt', '(manifest)', `"${builtAt}" is not an ISO 8601 date and time`);
  if (definitions.length > maxComponents)
    throw new ComponentDefinitionError(
      '(build)',
      '(manifest)',
      `${definitions.length} components: at most ${maxComponents}`,
    );
  const components: Record<string, string> = {};
  for (const definition of [...definitions].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (definition.name in components)
      throw new ComponentDefinitionError('(build)', `component "${definition.name}"`, 'is declared twice');
    components[definition.name] = definition.hash;
  }
  const manifest: Manifest = { hash: setHashOf(components), components, builtAt };
  protocolSchema.parse(manifest);
  return manifest;
}

/** The manifest of a build's component files: what `roomkeeper hash --out` writes. */
export async function protocolOfFiles(paths: readonly string[], options: { builtAt?: string } = {}): Promise<Manifest> {
  return protocolOf(await definitionsOfFiles(paths), options.builtAt);
}
