import * as path from 'node:path';
import { repoRoot } from '../paths';

/** Where, inside a function's bundle, the console's files go: lambdas/http/console/serve.ts looks there. */
const consoleBundleDir = 'console';

/**
 * Commands run after esbuild bundled the console's function: Vite builds the console from
 * source straight into the bundle, so a deploy never ships a stale or missing console/dist.
 * Only when bundling runs (`cdk synth`, `cdk deploy`, `npm run synth`); the CDK tests that skip
 * bundling need no build.
 */
export function consoleBuildCommands(outputDir: string): string[] {
  const config = path.join(repoRoot, 'console', 'vite.config.mts');
  const out = path.join(outputDir, consoleBundleDir);
  return [`cd "${repoRoot}" && npx vite build --config "${config}" --outDir "${out}" --emptyOutDir --logLevel warn`];
}
