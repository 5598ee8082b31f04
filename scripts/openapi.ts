import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openApiDocument } from '../lambdas/http/openapi';

/** Writes docs/openapi.json; a unit test fails when the committed copy is stale. */
const target = join(__dirname, '..', 'docs', 'openapi.json');
writeFileSync(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
process.stdout.write(`wrote ${target}\n`);
