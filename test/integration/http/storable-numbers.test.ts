import fc from 'fast-check';
import { storableNumberIssue } from '../../../core/protocol/storable-json';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Numbers DynamoDB cannot store (1e-200, 5e-324: below its 1e-130; 1e126: above its
 * 9.99…e125) in the fleet admin routes' numeric fields, through the real handlers on
 * DynamoDB Local. Each is a 400 naming the field and saying why, never a 500 from the write;
 * the stored region and host are unchanged. The check is the shared body parser's, so it
 * holds for every number of every body; the fields here are the ones that failed.
 */
let api: TestApi;
let admin: string;

const region = 'storable-region';
const hostId = 'storable-host';
const location = { lat: 48.85, lon: 2.35 };
const limits = { cpu: 0.8, memory: 0.7 };
const heartbeat = { cpu: 0.25, memory: 0.5, servers: 0 };

beforeAll(async () => {
  api = await startTestApi();
  admin = await api.platform.token('ops', ['admin']);
  expect((await api.call('PUT', `/v1/admin/regions/${region}`, { token: admin, body: { location } })).status).toBe(200);
  const host = { hostId, region, maxServers: 2, limits };
  expect((await api.call('POST', '/v1/admin/hosts', { token: admin, body: host })).status).toBe(201);
  expect((await api.call('PUT', `/v1/admin/hosts/${hostId}/heartbeat`, { token: admin, body: heartbeat })).status).toBe(
    204,
  );
});
afterAll(() => api.close());

/** Each numeric field of the fleet admin routes: where it goes in which body, and the field's name in a 400. */
const fields = [
  {
    name: 'a region’s location.lat',
    method: 'PUT',
    path: `/v1/admin/regions/${region}`,
    body: (x: number) => ({ location: { ...location, lat: x } }),
    field: 'body.location.lat',
  },
  {
    name: 'a region’s location.lon',
    method: 'PUT',
    path: `/v1/admin/regions/${region}`,
    body: (x: number) => ({ location: { ...location, lon: x } }),
    field: 'body.location.lon',
  },
  {
    name: 'a new host’s limits.cpu',
    method: 'POST',
    path: '/v1/admin/hosts',
    body: (x: number) => ({ hostId: 'storable-new', region, maxServers: 1, limits: { ...limits, cpu: x } }),
    field: 'body.limits.cpu',
  },
  {
    name: 'a new host’s limits.memory',
    method: 'POST',
    path: '/v1/admin/hosts',
    body: (x: number) => ({ hostId: 'storable-new', region, maxServers: 1, limits: { ...limits, memory: x } }),
    field: 'body.limits.memory',
  },
  {
    name: 'a host patch’s limits.cpu',
    method: 'PATCH',
    path: `/v1/admin/hosts/${hostId}`,
    body: (x: number) => ({ limits: { ...limits, cpu: x } }),
    field: 'body.limits.cpu',
  },
  {
    name: 'a host patch’s limits.memory',
    method: 'PATCH',
    path: `/v1/admin/hosts/${hostId}`,
    body: (x: number) => ({ limits: { ...limits, memory: x } }),
    field: 'body.limits.memory',
  },
  {
    name: 'a heartbeat’s cpu',
    method: 'PUT',
    path: `/v1/admin/hosts/${hostId}/heartbeat`,
    body: (x: number) => ({ ...heartbeat, cpu: x }),
    field: 'body.cpu',
  },
  {
    name: 'a heartbeat’s memory',
    method: 'PUT',
    path: `/v1/admin/hosts/${hostId}/heartbeat`,
    body: (x: number) => ({ ...heartbeat, memory: x }),
    field: 'body.memory',
  },
  {
    name: 'a configuration’s maxPlayers',
    method: 'PUT',
    path: '/v1/admin/games/storable/versions/1',
    body: (x: number) => ({ binary: '/bin/true', maxPlayers: x }),
    field: 'body.maxPlayers',
  },
] as const;

const unstorable: readonly [number, string][] = [
  [1e-200, 'is smaller in magnitude than 1e-130 and cannot be stored'],
  [5e-324, 'is smaller in magnitude than 1e-130 and cannot be stored'],
  [-1e-131, 'is smaller in magnitude than 1e-130 and cannot be stored'],
  [1e126, 'is larger in magnitude than 9.9999999999999999999999999999999999999e+125 and cannot be stored'],
];

async function storedFleet() {
  const regions = await api.call('GET', '/v1/admin/regions', { token: admin });
  const host = await api.call('GET', `/v1/admin/hosts/${hostId}`, { token: admin });
  return {
    location: regions.body.regions.find((r: { name: string }) => r.name === region)?.location,
    limits: host.body.host.limits,
    heartbeat: { cpu: host.body.host.heartbeat?.cpu, memory: host.body.host.heartbeat?.memory },
  };
}

describe.each(fields)('$name', ({ method, path, body, field }) => {
  it.each(unstorable)('%p is a 400 naming the field and saying why', async (value, why) => {
    const response = await api.call(method, path, { token: admin, body: body(value) });
    expect(response.status).toBe(400);
    expect(response.body.error).toEqual({
      code: 'BAD_REQUEST',
      message: `Invalid body: ${field} ${why}.`,
      details: { fields: [{ field, message: why }] },
    });
  });
});

it('leaves the stored region and host as they were', async () => {
  expect(await storedFleet()).toEqual({ location, limits, heartbeat: { cpu: 0.25, memory: 0.5 } });
  const created = await api.call('GET', '/v1/admin/hosts/storable-new', { token: admin });
  expect(created.status).toBe(404);
});

it('never answers 5xx for any double in any of these fields; a number it accepts is stored as sent', async () => {
  // Doubles of every magnitude, with DynamoDB's edges and the fields' own ranges well represented.
  const anyDouble = fc.oneof(
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.double({ noNaN: true, min: -1e-120, max: 1e-120 }),
    fc.double({ noNaN: true, min: 0, max: 1 }),
    fc.constantFrom(1e-130, -1e-130, 9.999999999999999e-131, 9.99e125, 1e126, 5e-324, -0),
  );
  const statuses: Record<number, number> = {};
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...fields), anyDouble, async ({ method, path, body, field }, value) => {
      const response = await api.call(method, path, { token: admin, body: body(value) });
      statuses[response.status] = (statuses[response.status] ?? 0) + 1;
      expect(response.status).toBeLessThan(500);
      if (response.status >= 400) {
        expect(response.body.error.code).toBe('BAD_REQUEST');
        expect(response.body.error.details.fields[0].field).toBe(field);
      }
      if (storableNumberIssue(value) !== undefined) expect(response.status).toBe(400);
      // Leave the created host, so the next POST of it is a fresh create again.
      if (method === 'POST' && response.status === 201) {
        expect(response.body.host.limits[field.split('.').at(-1) as 'cpu' | 'memory']).toBe(
          JSON.parse(JSON.stringify(value)),
        );
        expect((await api.call('DELETE', '/v1/admin/hosts/storable-new', { token: admin })).status).toBe(204);
      }
    }),
    { numRuns: 250 },
  );
  process.stdout.write(`storable-number fuzz statuses: ${JSON.stringify(statuses)} (expected no 5xx)\n`);
});
