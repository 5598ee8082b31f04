import type { HttpHandler } from '../../../lambdas/http/middleware';
import type { RouteDefinition } from '../../../lambdas/http/routes';
import { startApiGateway, type LocalApiGateway } from '../../../local/api-gateway';

const route: RouteDefinition = { id: 'hang', method: 'GET', path: '/v1/hang', entry: 'none', auth: 'public' };
const never = () => new Promise<never>(() => undefined);

let gateway: LocalApiGateway;
beforeAll(async () => {
  gateway = await startApiGateway({
    routes: [route],
    handlers: { hang: never as unknown as HttpHandler },
    ownRoutes: [{ method: 'GET', path: '/health', handle: never }],
    port: 0,
    timeoutMs: 100,
  });
});
afterAll(() => gateway.close());

describe('local API gateway timeout', () => {
  it.each(['/v1/hang', '/health'])(
    'answers %s past its deadline with 503 UNAVAILABLE in the API error shape',
    async (path) => {
      const response = await fetch(`${gateway.url}${path}`);

      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('1');
      expect(await response.json()).toEqual({
        error: { code: 'UNAVAILABLE', message: 'The request could not finish in time; retry in 1 s.' },
      });
    },
  );
});
