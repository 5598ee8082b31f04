import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The typed client runs in browsers (the console bundles it) as well as in Node: it may import
 * its generated types and openapi-fetch, never the platform's own code or a Node module.
 */
const dir = join(__dirname, '../../../client');

it('client/ imports only its generated types and openapi-fetch', () => {
  const imports = readdirSync(dir)
    .filter((name) => name.endsWith('.ts'))
    .flatMap((name) =>
      [...readFileSync(join(dir, name), 'utf8').matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)].map(
        (match) => `${name}: ${match[1]}`,
      ),
    );

  expect(imports.length).toBeGreaterThan(0);
  expect(imports.filter((line) => !/: (\.\/schema|openapi-fetch)$/.test(line))).toEqual([]);
});
