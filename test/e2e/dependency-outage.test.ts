import { expectUnavailable, startOutageCloud, timed, until, type OutageCloud } from '../helpers/outage';

/**
 * DynamoDB Local (the real JVM the local cloud started) stalled with SIGSTOP, then killed
 * with SIGKILL, under a running platform: routes answer 503 UNAVAILABLE with Retry-After
 * within seconds, /health names dynamodb within 2 s, and everything recovers by itself.
 */
let outage: OutageCloud;
beforeAll(async () => {
  outage = await startOutageCloud({ restartDelayMs: 4_000 });
}, 120_000);
afterAll(async () => {
  expect(await outage?.test.stop()).toEqual([]);
});

describe('local cloud with DynamoDB Local down (in memory)', () => {
  it('answers 503 UNAVAILABLE while DynamoDB Local is stalled (SIGSTOP) and recovers on SIGCONT', async () => {
    const { test, call, token, getRoom, health } = outage;
    expect((await getRoom()).status).toBe(404);
    const pid = test.cloud.dynamodb.pid;

    process.kill(pid, 'SIGSTOP');
    try {
      const read = await timed(getRoom);
      const create = await timed(() => call('POST', '/v1/rooms', { token, body: { gameId: 'g', version: '1' } }));
      const probe = await timed(health);
      process.stdout.write(
        `stalled DynamoDB: GET room ${read.result.status} in ${read.ms} ms, create ${create.result.status} in ${create.ms} ms (limit 12000); /health ${probe.result.status} in ${probe.ms} ms (limit 2000)\n`,
      );
      expectUnavailable(read.result);
      expectUnavailable(create.result);
      expect(read.ms).toBeLessThan(12_000);
      expect(create.ms).toBeLessThan(12_000);
      expect(probe.ms).toBeLessThan(2_000);
      expect(probe.result.status).toBe(503);
      expect(probe.result.body).toMatchObject({
        status: 'degraded',
        components: { dynamodb: 'down', sqs: 'up', pollers: 'up' },
        problems: { dynamodb: expect.stringContaining('no answer') },
      });
    } finally {
      process.kill(pid, 'SIGCONT');
    }

    const recovered = await timed(() => until(getRoom, (r) => r.status !== 503, 10_000));
    process.stdout.write(`after SIGCONT: GET room ${recovered.result.status} within ${recovered.ms} ms\n`);
    expect(recovered.result.status).toBe(404);
    expect((await health()).body).toMatchObject({ status: 'ok', components: { dynamodb: 'up' } });
    expect(test.cloud.dynamodb.pid).toBe(pid);
  }, 60_000);

  it('answers 503 UNAVAILABLE while DynamoDB Local is dead, restarts it on the same port, and serves again with the table and games restored', async () => {
    const { test, call, token, getRoom, health } = outage;
    expect((await getRoom()).status).toBe(404);
    const { pid, endpoint } = test.cloud.dynamodb;

    process.kill(pid, 'SIGKILL');
    expectUnavailable(await until(getRoom, (r) => r.status !== 404, 3_000));
    const probe = await timed(health);
    expect(probe.ms).toBeLessThan(2_000);
    expect(probe.result.body).toMatchObject({
      status: 'degraded',
      components: { dynamodb: 'down' },
      problems: { dynamodb: 'restarting (killed by SIGKILL)' },
    });

    const back = await timed(() => until(health, (r) => r.status === 200, 60_000));
    process.stdout.write(`DynamoDB Local SIGKILLed: healthy again ${back.ms} ms after the outage was seen\n`);
    expect(back.result.status).toBe(200);
    expect(test.cloud.dynamodb).toMatchObject({ endpoint, restarts: 1 });
    expect(test.cloud.dynamodb.pid).not.toBe(pid);
    expect((await getRoom()).status).toBe(404);
    expect((await call('GET', '/v1/admin/games/g/versions/1', { token })).status).toBe(200);
  }, 90_000);
});
