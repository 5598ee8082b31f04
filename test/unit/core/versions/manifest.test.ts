import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ComponentDefinitionError } from '../../../../core/versions/canonical';
import { definitionsOfText, protocolOf, protocolOfFiles } from '../../../../core/versions/manifest';
import { protocolDiff, protocolSchema, setHashOf } from '../../../../core/versions/protocol';

const fixtures = path.resolve(__dirname, '../../../fixtures/versions');
const fixture = (name: string) => path.join(fixtures, name);
const xmlFiles = ['PlayerMovement.AutoComponent.xml', 'Weapons.AutoComponent.xml', 'Chat.AutoComponent.xml'].map(
  fixture,
);
const builtAt = '2025-03-01T12:00:00.000Z';

describe('the manifest of a build', () => {
  it('is the same for the JSON and the AutoComponent XML forms of the same components', async () => {
    const fromJson = await protocolOfFiles([fixture('components.json')], { builtAt });
    const fromXml = await protocolOfFiles(xmlFiles, { builtAt });
    expect(fromXml).toEqual(fromJson);
    expect(Object.keys(fromJson.components)).toEqual(['Chat', 'Sample::PlayerMovement', 'Sample::Weapons']);
  });

  it('is the one docs/versions.md shows for the samples', async () => {
    const doc = fs.readFileSync(path.resolve(__dirname, '../../../../docs/versions.md'), 'utf8');
    const manifest = await protocolOfFiles(xmlFiles, { builtAt });
    expect(doc).toContain(JSON.stringify(manifest, null, 2));
  });

  it('is what the protocol schema takes, with a set hash of its components', async () => {
    const manifest = await protocolOfFiles(xmlFiles, { builtAt });
    expect(manifest.hash).toBe(setHashOf(manifest.components));
    expect(protocolSchema.parse(manifest)).toEqual(manifest);
  });

  it('does not depend on the order the files are listed in', async () => {
    const forward = await protocolOfFiles(xmlFiles, { builtAt });
    expect(await protocolOfFiles([...xmlFiles].reverse(), { builtAt })).toEqual(forward);
  });

  it('refuses a component declared twice, and a file it cannot read', async () => {
    await expect(protocolOfFiles([fixture('components.json'), xmlFiles[1]!], { builtAt })).rejects.toThrow(
      '(build): component "Sample::Weapons": is declared twice',
    );
    await expect(protocolOfFiles([fixture('missing.json')])).rejects.toThrow(
      `${fixture('missing.json')}: (file): cannot be read (ENOENT)`,
    );
    expect(() => definitionsOfText('{}', 'components.yaml')).toThrow(ComponentDefinitionError);
    expect(() => protocolOf([], 'yesterday')).toThrow('is not an ISO 8601 date and time');
  });
});

describe('a mismatch, component by component', () => {
  const json = JSON.parse(fs.readFileSync(fixture('components.json'), 'utf8')) as {
    components: { name: string; properties?: { type: string }[] }[];
  };

  async function manifestOf(components: unknown[], at: string) {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'roomkeeper-versions-'));
    const file = path.join(dir, 'components.json');
    fs.writeFileSync(file, JSON.stringify({ components }));
    return protocolOfFiles([file], { builtAt: at });
  }

  it('names the changed, added and removed components and the newer side', async () => {
    const server = await manifestOf(json.components, '2025-03-01T00:00:00Z');
    const weapons = structuredClone(json.components.find((c) => c.name === 'Weapons')!);
    weapons.properties![1]!.type = 'uint16_t';
    const client = await manifestOf(
      [...json.components.filter((c) => c.name !== 'Weapons' && c.name !== 'Chat'), weapons, { name: 'Emotes' }],
      '2025-03-02T00:00:00Z',
    );
    expect(protocolDiff(client, server)).toEqual({
      added: ['Emotes'],
      removed: ['Chat'],
      changed: ['Sample::Weapons'],
      newer: 'client',
    });
  });
});

describe('the protocol schema', () => {
  it('refuses a components map that does not hash to hash', async () => {
    const manifest = await protocolOfFiles(xmlFiles, { builtAt });
    const tampered = { ...manifest, components: { ...manifest.components, Chat: '0000000000000000' } };
    const result = protocolSchema.safeParse(tampered);
    expect(result.success).toBe(false);
    expect(result.error?.issues[0]?.path).toEqual(['hash']);
  });
});
