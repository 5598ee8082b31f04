/**
 * `npm run cost-model`: synthesizes the stack offline for each scenario (the same app
 * construction as `cdk synth`, asset bundling off, as the CDK tests do): with its defaults for
 * the idle column, with `-c scale=<name>` for each scale profile. Counts what each template
 * deploys and the settings its functions get, and prices a month of each. `-- --write`
 * rewrites the generated part of docs/cost-model.md; `-- --check` fails when it is stale.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App } from 'aws-cdk-lib';
import { addRoomkeeper } from '../cdk/lib/roomkeeper-app';
import { repoRoot } from '../cdk/lib/paths';
import type { ScaleName } from '../cdk/lib/scale/profiles';
import { costModelDocPath, docWithReport, priceScenarios } from './cost-model/doc';
import { defaultWorkload, usEast1Prices } from './cost-model/inputs';
import { renderReport } from './cost-model/report';
import type { TemplateJson } from './cost-model/template';

function synthesizedTemplate(scale: ScaleName | undefined): TemplateJson {
  const cdkJson = JSON.parse(fs.readFileSync(path.join(repoRoot, 'cdk.json'), 'utf8')) as {
    context: Record<string, unknown>;
  };
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'roomkeeper-cost-model-'));
  try {
    const app = new App({
      outdir,
      context: {
        ...cdkJson.context,
        'aws:cdk:bundling-stacks': [],
        stage: 'cost',
        // Real-looking settings, so synthesis does not warn about placeholders.
        authIssuer: 'https://issuer.example/',
        authAudience: 'roomkeeper',
        gameImage: 'public.ecr.aws/example/game:1.0.0',
        ...(scale ? { scale } : {}),
      },
    });
    const stack = addRoomkeeper(app);
    const assembly = app.synth();
    return assembly.getStackArtifact(stack.artifactId).template as TemplateJson;
  } finally {
    fs.rmSync(outdir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const priced = priceScenarios(synthesizedTemplate);
  const synthS = (Date.now() - started) / 1000;
  process.stdout.write(
    `${renderReport(priced, usEast1Prices, defaultWorkload)}\n(synthesized in ${synthS.toFixed(1)} s)\n`,
  );
  const doc = fs.readFileSync(costModelDocPath, 'utf8');
  const written = await docWithReport(doc, priced);
  const relative = path.relative(repoRoot, costModelDocPath);
  if (process.argv.includes('--write')) {
    fs.writeFileSync(costModelDocPath, written);
    process.stdout.write(`wrote ${relative}\n`);
  } else if (process.argv.includes('--check') && written !== doc) {
    process.stderr.write(`${relative} does not match the model: run \`npm run cost-model -- --write\`.\n`);
    process.exitCode = 1;
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
