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

describe('local API gateway hosts', () => {
  /** fetch sets Host from the URL; a raw request names another host, as a rebound page's would. */
  async function statusWithHost(host: string): Promise<number> {
    const { request } = await import('node:http');
    const { port } = new URL(gateway.url);
    return new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/files', headers: { host } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject).end();
    });
  }

  it('refuses a request naming a DNS name that could be rebound to this machine, and serves localhost', async () => {
    expect(await statusWithHost('attacker.example')).toBe(403);
    expect(await statusWithHost(`localhost:${new URL(gateway.url).port}`)).toBe(200);
  });
});
