import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import addFormats from 'ajv-formats';

/**
 * Checks real responses against the committed OpenAPI document (docs/openapi.json, OpenAPI
 * 3.1, so JSON Schema 2020-12) with ajv: an undocumented status, field, code or missing
 * header fails the test that received it. The shared HTTP helpers (test/helpers/http.ts,
 * test/helpers/platform.ts) call it on every response, so the document cannot drift from
 * what is served without a test noticing.
 */
export interface ObservedResponse {
  readonly method: string;
  /** The request path as sent, query string allowed (`/v1/rooms?gameId=x`). */
  readonly path: string;
  readonly status: number;
  /** Lowercase names; undocumented headers are allowed, documented ones are checked. */
  readonly headers: Record<string, string>;
  /** The parsed JSON body; undefined when the response had none. */
  readonly body: unknown;
}

interface MediaType {
  readonly schema?: unknown;
}
interface Header {
  readonly required?: boolean;
  readonly schema?: unknown;
}
interface Response {
  readonly description: string;
  readonly content?: Record<string, MediaType>;
  readonly headers?: Record<string, Header>;
}
interface Operation {
  readonly operationId?: string;
  readonly responses?: Record<string, Response>;
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
}

/** ROOMKEEPER_OPENAPI_DOCUMENT checks the traffic against another copy (a draft, an older release). */
const documentPath = process.env.ROOMKEEPER_OPENAPI_DOCUMENT ?? join(__dirname, '../../docs/openapi.json');
/** The document's own id for ajv: its `#/components/schemas/…` references resolve inside it. */
const documentId = 'https://roomkeeper.invalid/openapi.json';

interface Contract {
  readonly document: Document;
  readonly ajv: Ajv2020;
  readonly templates: readonly { readonly template: string; readonly pattern: RegExp; readonly literal: number }[];
  readonly validators: Map<string, ValidateFunction>;
}

let loaded: Contract | undefined;

function contract(): Contract {
  if (loaded) return loaded;
  const document = JSON.parse(readFileSync(documentPath, 'utf8')) as Document;
  // OpenAPI keywords (paths, info, …) sit around the schemas: strictSchema would reject them.
  const ajv = new Ajv2020({ allErrors: true, strictSchema: false, strictTypes: false });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: documentId });
  const templates = Object.keys(document.paths).map((template) => ({
    template,
    pattern: new RegExp(
      `^${template
        .split('/')
        .map((segment) => (/^\{\w+\}$/.test(segment) ? '[^/]+' : segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
        .join('/')}$`,
    ),
    // A literal segment beats a parameter: `/members/me` before `/{memberId}`.
    literal: template.split('/').filter((segment) => !segment.startsWith('{')).length,
  }));
  templates.sort((a, b) => b.literal - a.literal);
  loaded = { document, ajv, templates, validators: new Map() };
  return loaded;
}

const pointer = (...parts: string[]): string =>
  parts.map((part) => part.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

function validatorAt(c: Contract, location: string): ValidateFunction {
  let validate = c.validators.get(location);
  if (!validate) {
    validate = c.ajv.compile({ $ref: `${documentId}#/${location}` });
    c.validators.set(location, validate);
  }
  return validate;
}

/** One readable line per failing field: where (`body.room.failureReason`) and what is wrong. */
function describeErrors(where: string, errors: readonly ErrorObject[] | null | undefined): string {
  const lines = (errors ?? [])
    // anyOf/allOf summaries repeat what their branches already said.
    .filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'allOf')
    .map((e) => {
      const field = [where, ...e.instancePath.split('/').filter(Boolean)].join('.');
      const extra =
        e.keyword === 'additionalProperties'
          ? ` (undocumented field ${field}.${String((e.params as { additionalProperty: string }).additionalProperty)})`
          : e.keyword === 'enum'
            ? ` (allowed: ${(e.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')})`
            : '';
      return `  ${field} ${e.message ?? 'is invalid'}${extra}`;
    });
  return [...new Set(lines)].join('\n');
}

function fail(operation: string, status: number, problem: string, body: unknown): never {
  const shown = JSON.stringify(body);
  throw new Error(
    `docs/openapi.json: ${operation} answered ${status}, which the document does not describe:\n${problem}\n` +
      `  body: ${shown === undefined ? '(none)' : shown.length > 600 ? `${shown.slice(0, 600)}…` : shown}\n` +
      'Fix the document (lambdas/http/openapi.ts, then `npm run openapi`) or the response.',
  );
}

/**
 * Throws, naming the operation, the status and the failing field, unless the document
 * describes this response: its path and method, its status, every documented header that
 * is required, and its body (`additionalProperties: false` on every object the API owns, so
 * an undocumented field fails).
 */
export function assertMatchesOpenApi(response: {
  method: string;
  path: string;
  status: number;
  headers: Record<string, string>;
  body: unknown;
}): void {
  const c = contract();
  const method = response.method.toLowerCase();
  const path = response.path.split('?')[0]?.split('#')[0] ?? '';
  const matched = c.templates.filter((t) => t.pattern.test(path) && c.document.paths[t.template]?.[method]);
  const template = matched[0]?.template;
  const headers = Object.fromEntries(Object.entries(response.headers).map(([k, v]) => [k.toLowerCase(), v]));

  if (template === undefined) {
    // A CORS preflight is answered by the gateway's CORS configuration, as API Gateway's
    // own, and is outside the document like API Gateway's; any other unknown route must
    // get the gateway's 404 NOT_FOUND in the Error body.
    if (method === 'options') return;
    const described = `${response.method.toUpperCase()} ${path} (no such operation)`;
    if (response.status !== 404) {
      fail(described, response.status, '  the path and method are not in the document', response.body);
    }
    const validate = validatorAt(c, pointer('components', 'schemas', 'Error'));
    if (!validate(response.body)) fail(described, 404, describeErrors('body', validate.errors), response.body);
    return;
  }

  const operation = c.document.paths[template]?.[method] as Operation;
  const name = `${operation.operationId ?? '?'} (${response.method.toUpperCase()} ${template})`;
  const responses = operation.responses ?? {};
  const statusKey = [String(response.status), `${String(response.status)[0]}XX`, 'default'].find(
    (key) => responses[key] !== undefined,
  );
  if (statusKey === undefined) {
    fail(
      name,
      response.status,
      `  status ${response.status} is not documented (documented: ${Object.keys(responses).join(', ')})`,
      response.body,
    );
  }
  const documented = responses[statusKey] as Response;
  const base = ['paths', template, method, 'responses', statusKey];

  const problems: string[] = [];
  for (const [header, spec] of Object.entries(documented.headers ?? {})) {
    const value = headers[header.toLowerCase()];
    if (value === undefined) {
      if (spec.required) problems.push(`  header ${header} is required and missing`);
      continue;
    }
    if (spec.schema !== undefined) {
      const validate = validatorAt(c, pointer(...base, 'headers', header, 'schema'));
      if (!validate(value)) problems.push(describeErrors(`header ${header}`, validate.errors));
    }
  }

  const mediaTypes = Object.keys(documented.content ?? {});
  if (mediaTypes.length === 0) {
    if (response.body !== undefined) problems.push('  a body came where the document says there is none');
  } else if (response.body === undefined) {
    problems.push(`  the body is missing (documented: ${mediaTypes.join(', ')})`);
  } else {
    const contentType = headers['content-type']?.split(';')[0]?.trim();
    const mediaType = contentType && mediaTypes.includes(contentType) ? contentType : mediaTypes[0];
    if (contentType && contentType !== mediaType) {
      problems.push(`  content-type ${contentType} is not documented (documented: ${mediaTypes.join(', ')})`);
    }
    if (documented.content?.[mediaType as string]?.schema !== undefined) {
      const validate = validatorAt(c, pointer(...base, 'content', mediaType as string, 'schema'));
      if (!validate(response.body)) problems.push(describeErrors('body', validate.errors));
    }
  }
  if (problems.length > 0) fail(name, response.status, problems.join('\n'), response.body);
}
