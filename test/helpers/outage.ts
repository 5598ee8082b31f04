import { jsonClient, type JsonResponse } from './http';
import { fixtureGame, startTestCloud, type TestCloud } from './local-cloud';

/** Runs `work` and says how long it took. */
export async function timed<T>(work: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await work();
  return { result, ms: Date.now() - started };
}

/** Calls `probe` until `done` says so, for at most `limitMs`; returns the last answer. */
export async function until(
  probe: () => Promise<JsonResponse>,
  done: (r: JsonResponse) => boolean,
  limitMs: number,
): Promise<JsonResponse> {
  const deadline = Date.now() + limitMs;
  for (;;) {
    const response = await probe();
    if (done(response) || Date.now() > deadline) return response;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** docs/api.md's answer while a dependency is down: 503 UNAVAILABLE, a sentence, and Retry-After. */
export function expectUnavailable(response: JsonResponse): void {
  expect([response.status, response.body?.error?.code]).toEqual([503, 'UNAVAILABLE']);
  expect(typeof response.body.error.message).toBe('string');
  expect(Number(response.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
}

export interface OutageCloud {
  readonly test: TestCloud;
  readonly call: ReturnType<typeof jsonClient>;
  /** An admin token from the cloud's dev-token route. */
  readonly token: string;
  /** A route that reads DynamoDB: 404 while it is up. */
  getRoom(): Promise<JsonResponse>;
  health(): Promise<JsonResponse>;
}

/**
 * A local cloud in this process with one game and DynamoDB Local's restart delayed by
 * `restartDelayMs`, so a test sees the outage before the supervisor ends it. One per test
 * file: the dev-token route keeps the first signing key it sees in a process.
 */
export async function startOutageCloud(options: { restartDelayMs: number; persistDir?: string }): Promise<OutageCloud> {
  const test = await startTestCloud(
    [{ gameId: 'g', version: '1', configuration: { binary: fixtureGame, args: ['ok'], maxPlayers: 4 } }],
    { dynamodbRestartDelayMs: options.restartDelayMs, persistDir: options.persistDir },
  );
  const call = jsonClient(test.cloud.apiUrl);
  const issued = await call('POST', '/v1/dev/tokens', { body: { account: 'alice', scopes: ['admin'] } });
  const token = issued.body.access_token as string;
  return {
    test,
    call,
    token,
    getRoom: () => call('GET', '/v1/rooms/nope', { token }),
    health: () => call('GET', '/health'),
  };
}
