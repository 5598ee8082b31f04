import { PlatformError } from '../../core/errors';
import { IdempotencyKeyReusedError, IdempotencyRequestInProgressError } from '../../core/idempotency/errors';
import {
  hashIdempotencyKey,
  inProgressWaitMs,
  isFinalAnswer,
  parseIdempotencyKey,
  requestFingerprint,
  type StoredResponse,
} from '../../core/idempotency/record';
import type { IdempotencyClaim } from '../../core/idempotency/store';
import { platform } from '../dependencies';
import type { HttpRequest, HttpResponse } from './middleware';

const pollIntervalMs = 100;

/**
 * Makes a route's action honour `Idempotency-Key` (docs/api.md): the same key from the same account
 * within 10 minutes gets the first answer again and changes nothing more. Wraps the action
 * after authentication and validation, before the abuse guard, so a replay spends no allowance.
 *
 * - no header: the action runs as usual;
 * - malformed key (empty, > 64 characters, not printable ASCII): 400 `BAD_REQUEST`;
 * - the key was used for a different request (route, path or body): 400 `BAD_REQUEST`;
 * - the first request is still running: wait up to 3 s for its answer, then 503 `UNAVAILABLE`
 *   with `Retry-After` (nothing stored, so the retry gets the answer);
 * - a final answer (success, 400/404/409/412) is stored encrypted and replayed with
 *   `Idempotent-Replayed: true`; any other (401/403/429/5xx) frees the key for a retry.
 *
 * @example
 * export const handler = httpHandler(spec, idempotent('joinRoom', async ({ params, principal }) => …));
 */
export function idempotent<B, P, Q>(
  operation: string,
  action: (request: HttpRequest<B, P, Q>) => Promise<HttpResponse>,
): (request: HttpRequest<B, P, Q>) => Promise<HttpResponse> {
  return async (request) => {
    const key = parseIdempotencyKey(request.headers['idempotency-key']);
    if (key === undefined) return action(request);
    const p = platform();
    const asked = {
      account: request.principal.account,
      keyHash: hashIdempotencyKey(key),
      fingerprint: requestFingerprint(operation, request.params, request.body),
    };
    const waitUntil = p.now().getTime() + inProgressWaitMs;
    for (;;) {
      const result = await p.idempotency.claim(asked, p.now());
      if (result.state === 'Claimed') return runClaimed(result.claim, () => action(request));
      if (result.state === 'Completed') return replay(result.response);
      if (result.state === 'Mismatch') throw new IdempotencyKeyReusedError();
      if (p.now().getTime() >= waitUntil) {
        const retryAfterS = Math.max(1, Math.min(5, Math.ceil((result.leaseUntilMs - p.now().getTime()) / 1000)));
        throw new IdempotencyRequestInProgressError(retryAfterS);
      }
      await p.clock.sleep(pollIntervalMs);
    }
  };
}

async function runClaimed(claim: IdempotencyClaim, run: () => Promise<HttpResponse>): Promise<HttpResponse> {
  const store = platform().idempotency;
  let response: HttpResponse;
  try {
    response = await run();
  } catch (error) {
    const answer = error instanceof PlatformError ? errorAnswer(error) : undefined;
    if (answer && isFinalAnswer(answer.status)) await store.complete(claim, answer);
    else await store.release(claim).catch(() => undefined);
    throw error;
  }
  if (isFinalAnswer(response.status)) await store.complete(claim, response);
  else await store.release(claim);
  return response;
}

/** The docs/api.md error body the middleware would answer for `error`, to replay it byte for byte. */
function errorAnswer(error: PlatformError): StoredResponse {
  return {
    status: error.status,
    headers: error.headers,
    body: {
      error: {
        code: error.code,
        message: error.message,
        ...(error.details === undefined ? {} : { details: error.details }),
      },
    },
  };
}

function replay(response: StoredResponse): HttpResponse {
  return { ...response, headers: { ...response.headers, 'idempotent-replayed': 'true' } };
}
