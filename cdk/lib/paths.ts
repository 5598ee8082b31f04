import * as path from 'node:path';

/** The repository root: `entry` paths in `lambdas/http/routes.ts` are relative to it. */
export const repoRoot = path.resolve(__dirname, '..', '..');

/** The lock file esbuild bundling resolves dependencies against. */
export const lockFile = path.join(repoRoot, 'package-lock.json');
