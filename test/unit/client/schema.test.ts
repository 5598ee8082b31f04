import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { clientSchemaPath, clientSchemaSource } from '../../../scripts/client-schema';

const root = join(__dirname, '../../..');

it('client/schema.ts is what openapi-typescript makes of docs/openapi.json (run `npm run openapi`)', async () => {
  const document = JSON.parse(readFileSync(join(root, 'docs/openapi.json'), 'utf8')) as object;

  const generated = await clientSchemaSource(document, root);

  expect(generated).toEqual(readFileSync(join(root, clientSchemaPath), 'utf8'));
});
