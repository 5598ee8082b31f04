import fc from 'fast-check';
import type { Context } from 'aws-lambda';
import { z } from 'zod';
import { AuthTokenInvalidError, PlatformError } from '../../../../core/errors';
import type { Principal } from '../../../../core/auth/tokens';
import { httpHandler, type HttpEvent, type HttpDependencies } from '../../../../lambdas/http/middleware';

const context = { getRemainingTimeInMillis: () => 30_000 } as Context;

const principals: Record<string, Principal> = {
  'player-token': { account: 'alice', scopes: [] },
  'admin-token': { account: 'root', scopes: ['admin'] },
};
const deps = (): HttpDependencies => ({
  maxBodyBytes: 1024,
  verifyToken: async (token) => {
    const principal = principals[token];
    if (!principal) throw new AuthTokenInvalidError('The token is not valid.');
    return principal;
  },
});

function event(overrides: Partial<HttpEvent> = {}): HttpEvent {
  return {
    version: '2.0',
    routeKey: 'POST /things/{id}',
    rawPath: '/things/1',
    rawQueryString: '',
    headers: { authorization: 'Bearer player-token' },
    pathParameters: { id: '1' },
    isBase64Encoded: false,
    requestContext: { requestId: 'req-1', http: { method: 'POST', path: '/things/1', sourceIp: '127.0.0.1' } },
    ...overrides,
  } as HttpEvent;
}

class ThingLockedError extends PlatformError {
  readonly code = 'NOT_JOINABLE';
}

const createThing = httpHandler(
  {
    auth: {},
    body: z.strictObject({ name: z.string().max(10), size: z.number().int().default(1) }),
    params: z.strictObject({ id: z.string() }),
  },
  async ({ body, params, principal }) => {
    if (body.name === 'locked') throw new ThingLockedError('The thing is locked.');
    if (body.name === 'boom') throw new Error('secret internals at /srv/app.ts:42');
    return { status: 201, body: { id: params.id, name: body.name, size: body.size, owner: principal.account } };
  },
  deps,
);

const adminOnly = httpHandler({ auth: { scope: 'admin' } }, async () => ({ status: 204 }), deps);

function parse(result: Awaited<ReturnType<typeof createThing>>) {
  return { status: result.statusCode, body: result.body ? JSON.parse(result.body) : undefined };
}

describe('httpHandler', () => {
  it('passes the validated body, path and principal to the action', async () => {
    const result = parse(await createThing(event({ body: '{"name":"box"}' }), context));
    expect(result).toEqual({ status: 201, body: { id: '1', name: 'box', size: 1, owner: 'alice' } });
  });

  it.each([
    ['no header', {}, 401, 'UNAUTHORIZED'],
    ['not a bearer header', { authorization: 'Basic abc' }, 401, 'UNAUTHORIZED'],
    ['an unknown token', { authorization: 'Bearer nope' }, 401, 'UNAUTHORIZED'],
  ])('answers %s with %i %s', async (_name, headers, status, code) => {
    const result = parse(await createThing(event({ headers, body: '{"name":"box"}' }), context));
    expect(result.status).toBe(status);
    expect(result.body.error.code).toBe(code);
  });

  it('refuses a token without the route scope with 403 FORBIDDEN', async () => {
    expect(parse(await adminOnly(event(), context)).body.error.code).toBe('FORBIDDEN');
    expect(parse(await adminOnly(event({ headers: { authorization: 'Bearer admin-token' } }), context)).status).toBe(
      204,
    );
  });

  it.each([
    ['malformed JSON', '{"name":', 'The request body is not valid JSON.'],
    ['a wrong type', '{"name":5}', undefined],
    ['an unknown field', '{"name":"a","admin":true}', undefined],
    ['a JSON array', '[]', undefined],
  ])('answers %s with 400 BAD_REQUEST', async (_name, body, message) => {
    const result = parse(await createThing(event({ body }), context));
    expect(result.status).toBe(400);
    expect(result.body.error.code).toBe('BAD_REQUEST');
    if (message) expect(result.body.error.message).toBe(message);
  });

  it('names the unknown field', async () => {
    const result = parse(await createThing(event({ body: '{"name":"a","admin":true}' }), context));
    expect(result.body.error.details.fields).toEqual([expect.objectContaining({ field: 'body.admin' })]);
  });

  it('refuses a body above the limit with 413 before parsing it', async () => {
    const result = parse(await createThing(event({ body: `{"name":"${'x'.repeat(2000)}"}` }), context));
    expect(result).toEqual({ status: 413, body: { error: expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }) } });
  });

  it('maps a typed error to its status and message', async () => {
    const result = parse(await createThing(event({ body: '{"name":"locked"}' }), context));
    expect(result).toEqual({ status: 409, body: { error: { code: 'NOT_JOINABLE', message: 'The thing is locked.' } } });
  });

  it('hides an unexpected error behind a generic 500 that names the request', async () => {
    const result = await createThing(event({ body: '{"name":"boom"}' }), context);
    expect(result.statusCode).toBe(500);
    expect(result.body).not.toContain('secret');
    expect(JSON.parse(result.body ?? '').error.message).toContain('req-1');
  });

  it('forgets the previous body and caller when a Lambda context object is reused (warm container)', async () => {
    await createThing(event({ body: '{"name":"boom"}' }), context);
    const empty = await createThing(event({ body: '' }), context);
    expect(empty.statusCode).toBe(400);
    const anonymous = await createThing(event({ headers: {}, body: '{"name":"x"}' }), context);
    expect(anonymous.statusCode).toBe(401);
  });

  it('answers every arbitrary body with a 2xx or a 4xx carrying a code, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string(),
          fc.json(),
          fc.jsonValue().map((v) => JSON.stringify(v)),
          fc.constant('{"__proto__":{"name":"x"}}'),
        ),
        async (body) => {
          const result = await createThing(event({ body }), context);
          const status = result.statusCode ?? 0;
          expect(status < 300 || (status >= 400 && status < 500)).toBe(true);
          if (status >= 400) expect(typeof JSON.parse(result.body ?? '{}').error.code).toBe('string');
        },
      ),
      { numRuns: 1000 },
    );
  });
});
