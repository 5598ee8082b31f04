import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { canonicalTextOf, defineComponent } from '../../../../core/versions/canonical';
import { componentsOfJson } from '../../../../core/versions/components-json';
import { componentOfXml } from '../../../../core/versions/components-xml';
import { protocolOf } from '../../../../core/versions/manifest';

interface Vector {
  name: string;
  input: unknown;
  xml?: string;
  component: string;
  text: string;
  hash: string;
}
const root = path.resolve(__dirname, '../../../..');
const { vectors, set } = JSON.parse(
  fs.readFileSync(path.join(root, 'test/fixtures/versions/vectors.json'), 'utf8'),
) as {
  vectors: Vector[];
  set: { components: Record<string, string>; hash: string };
};
const doc = fs.readFileSync(path.join(root, 'docs/versions.md'), 'utf8');

/** Taken straight from the specification, not from the code under test. */
const sha64 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16);

describe('the test vectors', () => {
  it.each(vectors.map((v) => [v.name, v] as const))('%s: input → canonical text → hash', (_name, vector) => {
    const [input] = componentsOfJson(JSON.stringify(vector.input), 'vector.json');
    expect(canonicalTextOf(input!, 'vector.json')).toBe(vector.text);
    expect(sha64(vector.text)).toBe(vector.hash);
    expect(defineComponent(input!, 'vector.json')).toEqual({
      name: vector.component,
      text: vector.text,
      hash: vector.hash,
    });
    if (vector.xml !== undefined)
      expect(canonicalTextOf(componentOfXml(vector.xml, 'vector.xml'), 'v')).toBe(vector.text);
  });

  it('set hash: the header line, then one name<TAB>hash line per component in byte order', () => {
    const names = vectors.map((v) => v.component).sort();
    const text = `roomkeeper-protocol-set 1\n${names.map((name) => `${name}\t${set.components[name]}\n`).join('')}`;
    expect(sha64(text)).toBe(set.hash);
    const definitions = vectors.map((v) =>
      defineComponent(componentsOfJson(JSON.stringify(v.input), 'v.json')[0]!, 'v'),
    );
    expect(protocolOf(definitions, '2025-01-01T00:00:00Z').hash).toBe(set.hash);
  });

  it('are the ones docs/versions.md prints', () => {
    for (const vector of vectors) {
      expect(doc).toContain(JSON.stringify(vector.text));
      expect(doc).toContain(`\`${vector.hash}\``);
    }
    expect(doc).toContain(`\`${set.hash}\``);
  });
});
