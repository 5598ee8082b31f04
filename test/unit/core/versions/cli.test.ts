import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { protocolOfFiles } from '../../../../core/versions/manifest';

const root = path.resolve(__dirname, '../../../..');
const fixtures = 'test/fixtures/versions';
const xmlFiles = ['PlayerMovement.AutoComponent.xml', 'Weapons.AutoComponent.xml', 'Chat.AutoComponent.xml'].map(
  (name) => `${fixtures}/${name}`,
);

/** The installed command, as `npx roomkeeper` runs it. */
function roomkeeper(args: string[], env: Record<string, string> = {}) {
  const result = spawnSync(process.execPath, ['bin/roomkeeper.js', ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { ...process.env, SOURCE_DATE_EPOCH: '', ...env },
  });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('roomkeeper hash', () => {
  it('prints the manifest of the committed samples with --json and writes it with --out', async () => {
    const out = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'roomkeeper-cli-')), 'manifest.json');
    const run = roomkeeper(['hash', ...xmlFiles, '--json', '--out', out], { SOURCE_DATE_EPOCH: '1740830400' });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    const expected = await protocolOfFiles([`${root}/${fixtures}/components.json`], {
      builtAt: '2025-03-01T12:00:00.000Z',
    });
    expect(JSON.parse(run.stdout)).toEqual(expected);
    expect(Object.keys(JSON.parse(run.stdout))).toEqual(['hash', 'components', 'builtAt']);
    expect(fs.readFileSync(out, 'utf8')).toBe(run.stdout);
    // The JSON sample describes the same components: the command gives the same manifest for it.
    const fromJson = roomkeeper(['hash', `${fixtures}/components.json`, '--json'], { SOURCE_DATE_EPOCH: '1740830400' });
    expect(fromJson).toMatchObject({ code: 0, stderr: '' });
    expect(fromJson.stdout).toBe(run.stdout);
  });

  it('refuses a bad file with one line naming it, exit code 2 and no stack trace', () => {
    const bad = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'roomkeeper-cli-')), 'Bad.AutoComponent.xml');
    fs.writeFileSync(bad, '<Component Name="Bad">\n  <NetworkInput Name="Fire" />\n</Component>\n');
    const run = roomkeeper(['hash', `${fixtures}/components.json`, bad]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(
      new RegExp(
        `^roomkeeper: ${bad.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: component "Bad" > input 1 "Fire": type is missing or empty\n$`,
      ),
    );
  });

  it('lists hash under --help', () => {
    const run = roomkeeper(['--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Usage: roomkeeper /);
    expect(run.stdout).toMatch(/\n {2}hash \[options\] <files\.\.\.>/);
  });
});
