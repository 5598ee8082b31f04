import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * The README's "Deploying to AWS" section documents every CDK context parameter the app reads,
 * so a parameter added to cdk/lib/roomkeeper-app.ts without a line in the README fails here.
 */
const repoRoot = path.resolve(__dirname, '..', '..', '..');
const read = (file: string) => fs.readFileSync(path.join(repoRoot, file), 'utf8');

/** Context keys read by `contextString(app, 'key')`, `tryGetContext('key')` or named in `authPlaceholders`. */
export function contextKeys(source: string): string[] {
  const keys = new Set<string>();
  for (const match of source.matchAll(/(?:contextString\(app, |tryGetContext\()'([A-Za-z]+)'/g)) keys.add(match[1]!);
  const placeholders = /authPlaceholders = \{([\s\S]*?)\}/.exec(source)?.[1] ?? '';
  for (const match of placeholders.matchAll(/^\s*([A-Za-z]+):/gm)) keys.add(match[1]!);
  return [...keys].sort();
}

function section(markdown: string, heading: string): string {
  const start = markdown.indexOf(`## ${heading}\n`);
  if (start < 0) return '';
  const next = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, next < 0 ? undefined : next);
}

import { costBoundContextKeys } from '../../../cdk/lib/roomkeeper-app';

describe('README: Deploying to AWS', () => {
  const deploy = section(read('README.md'), 'Deploying to AWS');
  // Plus the cost bounds, read from the context by a list rather than one call each.
  const keys = [...contextKeys(read('cdk/lib/roomkeeper-app.ts')), ...costBoundContextKeys];

  it('finds the context parameters of the app', () => {
    expect(keys).toEqual(
      expect.arrayContaining(['authAudience', 'authIssuer', 'gameImage', 'gameServerEgress', 'stage']),
    );
  });

  it.each(keys)('documents the context parameter %s', (key) => {
    expect(deploy).toContain(`| \`${key}\``);
  });

  it.each(['Prerequisites', 'Bootstrap', 'Parameters', 'Deploy', 'Register a game configuration', 'Teardown'])(
    'has a "%s" part',
    (part) => {
      expect(deploy).toMatch(new RegExp(`^### ${part}`, 'm'));
    },
  );

  it('registers a configuration through the admin API and says what teardown keeps', () => {
    expect(deploy).toContain('PUT "$API/v1/admin/games/');
    expect(deploy).toMatch(/deletion protection/);
    expect(deploy).toMatch(/RETAIN/);
  });
});
