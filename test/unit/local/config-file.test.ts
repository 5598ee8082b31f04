import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultConfigPath, loadLocalConfigFile, LocalConfigFileError } from '../../../local/config-file';

const game = { gameId: 'arena', version: '1.0.0', configuration: { binary: '/games/arena', maxPlayers: 4 } };
const constants = { maxMembers: 2, visibility: 'open' };

function load(file: unknown) {
  const path = join(mkdtempSync(join(tmpdir(), 'rk-config-')), 'roomkeeper.json');
  writeFileSync(path, JSON.stringify(file));
  return loadLocalConfigFile(path);
}

describe('the local configuration file: templates', () => {
  it('loads the committed file, with its templates', () => {
    const file = loadLocalConfigFile(defaultConfigPath);
    expect(file.templates.map((t) => t.name)).toEqual(['sample-duel', 'sample-lobby']);
  });

  it('has no templates unless it lists some', () => {
    expect(load({ games: [game] }).templates).toEqual([]);
  });

  it('loads a dedicated template on a game of the file and a peer-hosted one', () => {
    const file = load({
      games: [game],
      templates: [
        { name: 'duel', template: { gameId: 'arena', version: '1.0.0', constants } },
        { name: 'lobby', template: { constants: { ...constants, timeouts: { sessionEmptyMs: null } } } },
      ],
    });
    expect(file.templates[1]).toEqual({
      name: 'lobby',
      template: { constants: { ...constants, timeouts: { sessionEmptyMs: null }, custom: {} } },
    });
  });

  it.each([
    [
      'a template on a game not in the file',
      { name: 'duel', template: { gameId: 'arena', version: '2.0.0', constants } },
      'templates.0.template.gameId',
    ],
    [
      "more members than the game's maxPlayers",
      { name: 'duel', template: { gameId: 'arena', version: '1.0.0', constants: { ...constants, maxMembers: 5 } } },
      'templates.0.template.constants.maxMembers',
    ],
    ['a bad name', { name: 'two words', template: { constants } }, 'templates.0.name'],
    [
      'gameId without version',
      { name: 'duel', template: { gameId: 'arena', constants } },
      'templates.0.template.version',
    ],
    [
      'a bad visibility',
      { name: 'duel', template: { constants: { ...constants, visibility: 'x' } } },
      'templates.0.template.constants.visibility',
    ],
  ])('refuses %s, naming the field', (_name, template, field) => {
    expect(() => load({ games: [game], templates: [template] })).toThrow(LocalConfigFileError);
    expect(() => load({ games: [game], templates: [template] })).toThrow(
      new RegExp(`${field.replaceAll('.', '\\.')}:`),
    );
  });

  it('refuses a template named twice', () => {
    const twice = { name: 'lobby', template: { constants } };
    expect(() => load({ templates: [twice, twice] })).toThrow(/templates\.1\.name: lobby is named twice/);
  });
});
