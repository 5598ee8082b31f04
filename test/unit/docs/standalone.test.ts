import * as fs from 'node:fs';
import * as path from 'node:path';

/**
 * A user's clone holds only this repository: the README and docs/ must not send readers to
 * the internal design notes (`../shared/`), and every relative link must land on a file.
 */
const repoRoot = path.resolve(__dirname, '..', '..', '..');
const docsDir = path.join(repoRoot, 'docs');

function userDocs(): string[] {
  const docs = fs
    .readdirSync(docsDir, { recursive: true, encoding: 'utf8' })
    .map((name) => path.join(docsDir, name))
    .filter((file) => fs.statSync(file).isFile());
  return [path.join(repoRoot, 'README.md'), ...docs];
}

/** The internal notes' file names (upper case; docs/api.md is not one of them). */
const internalNotes = /\b(API|GAME_SERVER_PROTOCOL|ARCHITECTURE|RELIABILITY|STACK|STYLE)\.md\b/;

const markdown = () => userDocs().filter((file) => file.endsWith('.md'));
const relative = (file: string) => path.relative(repoRoot, file);

/** Targets of inline Markdown links and images, `[text](target)`, outside code. */
export function linkTargets(text: string): string[] {
  const withoutCode = text.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...withoutCode.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
}

describe('user docs stand alone', () => {
  it('finds the README and the docs', () => {
    expect(markdown().map(relative)).toEqual(expect.arrayContaining(['README.md', 'docs/api.md']));
  });

  it.each(userDocs().map(relative))('%s does not point at the internal shared notes', (file) => {
    const text = fs.readFileSync(path.join(repoRoot, file), 'utf8');
    expect(text).not.toMatch(/\.\.\/shared\b/);
    expect(text).not.toMatch(/\/work\/shared\b/);
    // Nor name those notes as if the reader had them (docs/api.md is the contract here).
    expect(text).not.toMatch(internalNotes);
  });

  it.each(markdown().map(relative))('every relative link of %s points at an existing file', (file) => {
    const absolute = path.join(repoRoot, file);
    const broken = linkTargets(fs.readFileSync(absolute, 'utf8'))
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target) && !target.startsWith('#'))
      .map((target) => decodeURIComponent(target.split('#')[0]!))
      .filter((target) => !fs.existsSync(path.resolve(path.dirname(absolute), target)));
    expect(broken).toEqual([]);
  });

  it('reads links the way Markdown writes them', () => {
    const text = 'See [api](api.md#errors), ![d](img/x.png "t") and `[no](code.md)`.\n```\n[no](block.md)\n```';
    expect(linkTargets(text)).toEqual(['api.md#errors', 'img/x.png']);
  });
});
