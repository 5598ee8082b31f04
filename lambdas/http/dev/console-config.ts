import { RouteNotFoundError } from '../../../core/errors';
import { config } from '../../../core/infra/config';
import type { ConsoleConfig } from '../console/config-schema';
import { httpHandler } from '../middleware';
import { signDevToken } from './dev-signer';

/** The account the local cloud's console acts as; its token carries the `admin` scope only. */
const consoleAccount = 'console';
const consoleTokenTtlS = 3600;
/** The local live gateway's path (local/live-gateway.ts), on the same host and port as the API. */
const localLivePath = '/v1/live';

/**
 * Local cloud only: `GET /console/config.json` signs the console in with an admin token of the
 * run's dev key (no more exposed than `POST /v1/dev/tokens`). A local-only route, so a deployed
 * stack has no code that mints one: its console's config.json (lambdas/http/console/serve.ts)
 * never carries a token, whatever the function's environment holds.
 */
export const handler = httpHandler({ auth: 'public' }, async ({ headers }) => {
  const { auth, liveUrl } = config();
  const token = await signDevToken(auth, { account: consoleAccount, scopes: ['admin'], ttlS: consoleTokenTtlS });
  if (token === undefined) throw new RouteNotFoundError('GET', '/console/config.json');
  const live = liveUrl ?? (headers.host ? `ws://${headers.host}${localLivePath}` : undefined);
  const body: ConsoleConfig = { local: true, token, expiresIn: consoleTokenTtlS, ...(live ? { liveUrl: live } : {}) };
  return { status: 200, body, headers: { 'cache-control': 'no-store' } };
});
