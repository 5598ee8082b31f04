import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bundleSizes, formatBundleSizes, maxBundleBytes } from '../cdk/lib/bundle-sizes';

/**
 * `npm run synth`: synthesizes the stack offline (the placeholder issuer and image of
 * cdk/lib/roomkeeper-app.ts, no AWS account), quietly, into cdk.out. Synthesis runs cdk-nag
 * and the CloudFormation validator, either of which fails it. Then prints the synth time and
 * every function's bundle size, and fails when one reaches 1 MB.
 */
const root = path.join(__dirname, '..');
const outdir = path.join(root, 'cdk.out');
const stage = 'dev';
const started = process.hrtime.bigint();
const synth = spawnSync('npx', ['cdk', 'synth', '--quiet', '--output', outdir, '-c', `stage=${stage}`], {
  cwd: root,
  encoding: 'utf8',
});
const seconds = Number(process.hrtime.bigint() - started) / 1e9;
if (synth.status !== 0) {
  process.stderr.write(synth.stdout + synth.stderr);
  process.stderr.write(`cdk synth failed (exit ${synth.status})\n`);
  process.exit(1);
}
const templateFile = `Roomkeeper-${stage}.template.json`;
if (!fs.existsSync(path.join(outdir, templateFile))) throw new Error(`No ${templateFile} in ${outdir}`);
const sizes = bundleSizes(outdir, templateFile);
process.stdout.write(`cdk synth: ${seconds.toFixed(1)} s, ${sizes.length} functions\n${formatBundleSizes(sizes)}\n`);
const tooLarge = sizes.filter((s) => s.codeBytes >= maxBundleBytes);
if (tooLarge.length > 0) {
  process.stderr.write(`Bundles of 1 MB or more: ${tooLarge.map((s) => s.function).join(', ')}\n`);
  process.exit(1);
}
