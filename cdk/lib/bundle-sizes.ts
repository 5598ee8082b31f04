import * as fs from 'node:fs';
import * as path from 'node:path';
import { deflateRawSync } from 'node:zlib';

/** The most a function's bundled code (`index.js`) may weigh: cold starts grow with it. */
export const maxBundleBytes = 1_000_000;

export interface BundleSize {
  /** Logical id of the AWS::Lambda::Function. */
  readonly function: string;
  /** The asset directory, relative to the cloud assembly. */
  readonly assetPath: string;
  /** Bytes of the bundled `index.js` (the source map beside it is not loaded unless an error is printed). */
  readonly codeBytes: number;
  /** Bytes of the whole asset directory (code and source map), before zipping. */
  readonly assetBytes: number;
  /** About what the uploaded zip weighs: every file deflated (zip's method), headers aside. */
  readonly zippedBytes: number;
}

function filesOf(dir: string): string[] {
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((entry) => (entry.isDirectory() ? filesOf(path.join(dir, entry.name)) : [path.join(dir, entry.name)]));
}

/** Every Lambda function of a synthesized stack with the size of its bundle, largest first. */
export function bundleSizes(assemblyDir: string, templateFile: string): BundleSize[] {
  const template = JSON.parse(fs.readFileSync(path.join(assemblyDir, templateFile), 'utf8')) as {
    Resources: Record<string, { Type: string; Metadata?: Record<string, unknown> }>;
  };
  const sizes: BundleSize[] = [];
  for (const [id, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const assetPath = resource.Metadata?.['aws:asset:path'];
    if (typeof assetPath !== 'string') throw new Error(`${id} has no asset (was bundling skipped?)`);
    const dir = path.resolve(assemblyDir, assetPath);
    const code = path.join(dir, 'index.js');
    if (!fs.existsSync(code)) throw new Error(`${id}: no bundled index.js in ${dir}`);
    const files = filesOf(dir);
    sizes.push({
      function: id,
      assetPath,
      codeBytes: fs.statSync(code).size,
      assetBytes: files.reduce((sum, file) => sum + fs.statSync(file).size, 0),
      zippedBytes: files.reduce((sum, file) => sum + deflateRawSync(fs.readFileSync(file), { level: 9 }).length, 0),
    });
  }
  return sizes.sort((a, b) => b.codeBytes - a.codeBytes);
}

export function formatBundleSizes(sizes: readonly BundleSize[]): string {
  const kb = (bytes: number) => `${(bytes / 1000).toFixed(0).padStart(5)} KB`;
  return sizes
    .map((s) => `${kb(s.codeBytes)} code  ${kb(s.assetBytes)} with map  ${kb(s.zippedBytes)} zipped  ${s.function}`)
    .join('\n');
}
