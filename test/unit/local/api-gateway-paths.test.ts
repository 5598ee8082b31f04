import type { HttpHandler } from '../../../lambdas/http/middleware';
import type { RouteDefinition } from '../../../lambdas/http/routes';
import { startApiGateway, type LocalApiGateway } from '../../../local/api-gateway';

/** Route matching as API Gateway's HTTP API does it: greedy `{name+}` variables, a trailing slash ignored. */
const routes: RouteDefinition[] = [
  { id: 'root', method: 'GET', path: '/files', entry: 'none', auth: 'public' },
  { id: 'file', method: 'GET', path: '/files/{path+}', entry: 'none', auth: 'public' },
];
const echo: HttpHandler = async (event) => ({
  statusCode: 200,
  body: JSON.stringify({ route: event.routeKey, params: event.pathParameters ?? null }),
});

let gateway: LocalApiGateway;
beforeAll(async () => {
  gateway = await startApiGateway({ routes, handlers: { root: echo, file: echo }, port: 0 });
});
afterAll(() => gateway.close());

const get = async (path: string) => (await fetch(`${gateway.url}${path}`)).json();

describe('local API gateway paths', () => {
  it('hands a greedy variable the rest of the path, slashes included', async () => {
    expect(await get('/files/assets/app.js')).toEqual({
      route: 'GET /files/{path+}',
      params: { path: 'assets/app.js' },
    });
  });

  it('routes a path with a trailing slash to the route without it', async () => {
    expect(await get('/files/')).toEqual({ route: 'GET /files', params: null });
  });
});
