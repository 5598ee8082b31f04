import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../lambdas/http/openapi';
import { clientSchemaPath, clientSchemaSource } from './client-schema';

/**
 * Writes docs/openapi.json and the typed client's generated types (client/schema.ts) from it;
 * unit tests fail when either committed copy is stale.
 */
async function main(): Promise<void> {
  const root = join(__dirname, '..');
  const document = JSON.parse(JSON.stringify(openApiDocument())) as object;
  const target = join(root, 'docs', 'openapi.json');
  writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
  process.stdout.write(`wrote ${target}\n`);
  const schema = join(root, clientSchemaPath);
  writeFileSync(schema, await clientSchemaSource(document, root));
  process.stdout.write(`wrote ${schema}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
