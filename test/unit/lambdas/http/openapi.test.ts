import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../../../../lambdas/http/openapi';
import { routes } from '../../../../lambdas/http/routes';

describe('the OpenAPI document', () => {
  const document = openApiDocument();

  it('describes every route of the route table', () => {
    for (const route of routes) {
      // OpenAPI has no greedy parameter: API Gateway's `{path+}` is written `{path}` there.
      const path = route.path.replace(/\{(\w+)\+\}/g, '{$1}');
      expect(document.paths?.[path]?.[route.method.toLowerCase() as 'get']?.operationId).toBe(route.id);
    }
  });

  it('is committed as generated (run `npm run openapi` after changing a schema)', () => {
    const committed = JSON.parse(readFileSync(join(__dirname, '../../../../docs/openapi.json'), 'utf8'));
    expect(committed).toEqual(JSON.parse(JSON.stringify(document)));
  });
});
