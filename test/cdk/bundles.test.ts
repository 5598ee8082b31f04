import * as fs from 'node:fs';
import * as path from 'node:path';
import { Template } from 'aws-cdk-lib/assertions';
import { bundleSizes, formatBundleSizes, maxBundleBytes } from '../../cdk/lib/bundle-sizes';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { auth, gameImage, useScratch } from './support';

/**
 * Issue 10, point 10: every function's bundle, built for real by esbuild as `cdk synth` and
 * `cdk deploy` build it (the other CDK tests skip bundling), stays under 1 MB. The AWS SDK
 * comes from the Lambda runtime (cdk/lib/constructs/project-function.ts).
 */
const { newApp, cleanUp } = useScratch();
afterAll(cleanUp);

it('every Lambda bundle (index.js) is under 1 MB, and the SDK is not in it', () => {
  const app = newApp({
    stage: 'bundles',
    ...auth,
    gameImage,
    'aws:cdk:bundling-stacks': ['**'],
    // As the CLI sets it: the template names each function's asset directory.
    'aws:cdk:enable-asset-metadata': true,
  });
  const stack = addRoomkeeper(app);
  Template.fromStack(stack); // synthesizes, bundling every function
  const sizes = bundleSizes(app.outdir, path.basename(stack.templateFile));
  process.stdout.write(`${formatBundleSizes(sizes)}\n`);
  expect(sizes.length).toBeGreaterThan(15);
  expect(sizes.filter((s) => s.codeBytes >= maxBundleBytes).map((s) => s.function)).toEqual([]);
  // The SDK is required from the runtime, not bundled.
  const [largest] = sizes;
  const code = fs.readFileSync(path.join(app.outdir, largest!.assetPath, 'index.js'), 'utf8');
  expect(code).toMatch(/require\("@aws-sdk\/client-dynamodb"\)/);
  // The console's function carries the console, built from source by the bundling hook.
  const consoleFn = sizes.find((s) => s.function.startsWith('RouteconsoleFile'));
  expect(fs.existsSync(path.join(app.outdir, consoleFn!.assetPath, 'console', 'index.html'))).toBe(true);
}, 180_000);
