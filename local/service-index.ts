import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '..');

/** What `GET /` answers in the local cloud: where to go next. Local only, like `/health` (docs/local-cloud.md). */
export interface ServiceIndex {
  readonly service: 'roomkeeper';
  readonly description: string;
  readonly version: string;
  readonly links: { readonly health: string; readonly openapi: string; readonly jwks: string };
}

export function serviceIndex(): ServiceIndex {
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  return {
    service: 'roomkeeper',
    description: 'The Roomkeeper local cloud: rooms, joins and game servers on demand. Routes: /openapi.json.',
    version,
    links: { health: '/health', openapi: '/openapi.json', jwks: '/.well-known/jwks.json' },
  };
}

/**
 * The API document as committed (docs/openapi.json, `npm run openapi`), read at each request
 * so a regenerated one is served without a restart.
 */
export function openApiJson(): unknown {
  return JSON.parse(readFileSync(join(root, 'docs', 'openapi.json'), 'utf8'));
}
