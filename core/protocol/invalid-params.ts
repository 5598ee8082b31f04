import type { z } from 'zod';
import { storableJsonIssue } from './storable-json';

/**
 * Why JSON-RPC params are refused (-32602), as one sentence naming the member, or undefined
 * when they pass. Params are checked twice, by the sidecar before forwarding and by the
 * platform before applying, with the same words:
 *
 * 1. the whole params value must be JSON that can be stored and read back exactly (no
 *    integer beyond 2^53, no number outside DynamoDB's range, no nesting deeper than the storable limit, no
 *    empty or prototype key) — also in members the method's schema would drop;
 * 2. then the method's own schema.
 */
export function checkRpcParams<S extends z.ZodType>(
  schema: S,
  params: unknown,
): { readonly message: string } | { readonly data: z.output<S> } {
  // Depth -1: params are the envelope, so `settings` may nest as deep as room settings may.
  const unstorable = storableJsonIssue(params, [], -1);
  if (unstorable) return { message: describe(unstorable.path, unstorable.message) };
  const parsed = schema.safeParse(params);
  if (parsed.success) return { data: parsed.data };
  const issue = parsed.error.issues[0];
  return { message: describe(issue?.path ?? [], issue?.message ?? 'not accepted') };
}

function describe(path: readonly PropertyKey[], message: string): string {
  const where = path.length > 0 ? `${path.map(String).join('.')}: ` : '';
  return `Invalid params: ${where}${message}.`;
}
