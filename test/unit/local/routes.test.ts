import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from '../../../lambdas/http/routes';
import { httpHandlers } from '../../../local/http-handlers';

const root = join(__dirname, '../../..');

describe('the route table', () => {
  it('gives the local gateway a handler for every route and nothing else', () => {
    expect(Object.keys(httpHandlers).sort()).toEqual(routes.map((r) => r.id).sort());
  });

  it.each(routes.map((r) => [r.id, r.entry]))(
    '%s: the local handler is the export CDK bundles from %s',
    (id, entry) => {
      expect(existsSync(join(root, entry))).toBe(true);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const module = require(join(root, entry)) as { handler: unknown };
      expect(httpHandlers[id as keyof typeof httpHandlers]).toBe(module.handler);
    },
  );

  it('has unique ids and route keys', () => {
    expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
    expect(new Set(routes.map((r) => `${r.method} ${r.path}`)).size).toBe(routes.length);
  });

  it('keeps every /v1/dev route local-only', () => {
    for (const route of routes.filter((r) => r.path.startsWith('/v1/dev/')))
      expect(route).toHaveProperty('localOnly', true);
  });
});
