import * as z from 'zod';
import { ComponentDefinitionError, type ComponentInput } from './canonical';

/**
 * Network components written as JSON (docs/versions.md "Component files"): for engines without
 * O3DE's AutoComponent XML, a build step writes its components' wire-relevant shape here. Unknown
 * fields are refused: a misspelt `relaible` must not silently leave a field out of the hash.
 */

/** Text a reader may keep beside a member; it never enters the hash. */
const description = z.string().optional();

const typedSchema = z.strictObject({ name: z.string(), type: z.string(), description });

const rpcSchema = z.strictObject({
  name: z.string(),
  invokeFrom: z.string().optional(),
  handleOn: z.string().optional(),
  reliable: z.boolean().optional(),
  params: z.array(typedSchema).default([]),
  description,
});

const propertySchema = z.strictObject({
  name: z.string(),
  type: z.string(),
  container: z.string().optional(),
  count: z.union([z.string(), z.int().nonnegative().transform(String)]).optional(),
  replicateFrom: z.string().optional(),
  replicateTo: z.string().optional(),
  rewindable: z.boolean().optional(),
  predictable: z.boolean().optional(),
  description,
});

const archetypeSchema = z.strictObject({
  name: z.string(),
  type: z.string(),
  container: z.string().optional(),
  count: z.union([z.string(), z.int().nonnegative().transform(String)]).optional(),
  description,
});

const componentSchema = z.strictObject({
  name: z.string(),
  namespace: z.string().optional(),
  rpcs: z.array(rpcSchema).default([]),
  properties: z.array(propertySchema).default([]),
  inputs: z.array(typedSchema).default([]),
  archetypes: z.array(archetypeSchema).default([]),
  description,
});

/** A file holds `{ "components": [...] }`, one component object, or an array of them. */
const fileSchema = z.union([
  z.strictObject({ components: z.array(componentSchema) }),
  z.array(componentSchema),
  componentSchema,
]);

/** `components[1].rpcs[0].reliable` from a zod issue path. */
function pathText(path: readonly PropertyKey[]): string {
  const text = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  return text === '' ? '(file)' : text.replace(/^\./, '');
}

/** The components a JSON file declares; `source` names the file in errors. */
export function componentsOfJson(text: string, source: string): ComponentInput[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ComponentDefinitionError(source, '(file)', `not JSON: ${(error as Error).message}`);
  }
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) {
    const issue = deepestIssue(parsed.error.issues);
    throw new ComponentDefinitionError(source, pathText(issue.path), issue.message);
  }
  const data = parsed.data;
  if (Array.isArray(data)) return data;
  return 'components' in data ? data.components : [data];
}

/**
 * A union's failure lists each branch's issues; the one deepest in the file is the branch the
 * writer meant, so it is the one worth naming.
 */
function deepestIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const flat = issues.flatMap((issue) =>
    issue.code === 'invalid_union'
      ? issue.errors.flat().map((inner) => ({ ...inner, path: [...issue.path, ...inner.path] }))
      : [issue],
  );
  return flat.reduce((best, issue) => (issue.path.length > best.path.length ? issue : best), flat[0]!);
}
