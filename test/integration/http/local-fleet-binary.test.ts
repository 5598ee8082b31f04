import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * Issue 27: the local fleet runs this machine's files, so a configuration whose `binary` it
 * cannot start is refused at PUT (400 naming body.binary), not accepted and then failed as a
 * `crashed` room. On ECS the binary is inside the image and is not checked.
 */
const path = '/v1/admin/games/arena/versions/1';
let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'rk-local-binary-'));
  writeFileSync(join(scratch, 'server'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(scratch, 'server'), 0o755);
  writeFileSync(join(scratch, 'not-executable'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(scratch, 'not-executable'), 0o644);
});
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

describe('a local-fleet configuration whose binary cannot start', () => {
  let api: TestApi;
  let admin: string;
  beforeAll(async () => {
    api = await startTestApi({ SPAWNER: 'local' });
    admin = await api.platform.token('ops', ['admin']);
  });
  afterAll(() => api.close());

  const put = (body: Record<string, unknown>) =>
    api.call('PUT', path, { token: admin, body: { maxPlayers: 4, ...body } });

  it.each([
    ['a missing file', () => ({ binary: join(scratch, 'missing') }), /does not exist on this machine/],
    ['a file without the execute bit', () => ({ binary: join(scratch, 'not-executable') }), /is not executable/],
    ['a directory', () => ({ binary: scratch }), /is not a file/],
    ['a relative path', () => ({ binary: 'containers/sample-game/bin/sample-game' }), /relative path/],
    ['a dot path', () => ({ binary: './server' }), /relative path/],
    ['a command on no directory of PATH', () => ({ binary: 'no-such-command-rk27' }), /no executable named/],
    [
      'a command the configured PATH does not hold',
      () => ({ binary: 'server', env: { PATH: '/nonexistent-rk27' } }),
      /no executable named server/,
    ],
    ['an image only', () => ({ image: 'registry.example/arena:1' }), /runs binaries, not images/],
  ])('refuses %s with 400 naming body.binary, and stores nothing', async (_, body, message) => {
    const response = await put(body());
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('BAD_REQUEST');
    expect(response.body.error.message).toMatch(message);
    expect(response.body.error.details.fields).toEqual([
      { field: 'body.binary', message: expect.stringMatching(message) },
    ]);
    expect((await api.call('GET', path, { token: admin })).status).toBe(404);
  });

  it.each([
    ['an absolute executable', () => ({ binary: join(scratch, 'server') })],
    ['a command name on the platform PATH', () => ({ binary: 'true' })],
    ['a command name on the configured PATH', () => ({ binary: 'server', env: { PATH: scratch } })],
  ])('accepts %s', async (_, body) => {
    expect((await put(body())).status).toBe(200);
  });
});

describe('an ECS configuration', () => {
  it('is not checked: its binary is a path inside the image', async () => {
    const api = await startTestApi({ SPAWNER: 'ecs' });
    try {
      const admin = await api.platform.token('ops', ['admin']);
      const response = await api.call('PUT', path, {
        token: admin,
        body: { binary: '/game/only-in-the-image', image: 'registry.example/arena:1', maxPlayers: 4 },
      });
      expect(response.status).toBe(200);
    } finally {
      await api.close();
    }
  });
});
