import { GameConfigurationBinaryError } from '../../../../core/gameservers/errors';
import {
  assertLocalBinaryStarts,
  localBinaryProblem,
  type LocalFileState,
} from '../../../../core/gameservers/local-binary';

/** A file system of a few files: everything else is missing. */
const files: Readonly<Record<string, LocalFileState>> = {
  '/games/arena': 'executable',
  '/games/readme': 'not-executable',
  '/games': 'not-a-file',
  '/usr/bin/python3': 'executable',
  '/opt/studio/bin/arena': 'executable',
};
const stateOf = (file: string): LocalFileState => files[file] ?? 'missing';

describe('localBinaryProblem', () => {
  it.each([
    ['an absolute executable', '/games/arena', '/usr/bin'],
    ['a command on PATH', 'python3', '/usr/local/bin:/usr/bin'],
    ['a command on a later PATH entry', 'arena', '/usr/bin:/opt/studio/bin'],
  ])('accepts %s', (_, binary, path) => {
    expect(localBinaryProblem(binary, path, stateOf)).toBeUndefined();
  });

  it.each([
    ['no binary (an image only)', undefined, '/usr/bin', /runs binaries, not images/],
    ['a missing absolute path', '/games/missing', '/usr/bin', /\/games\/missing does not exist/],
    ['a file without the execute bit', '/games/readme', '/usr/bin', /not executable/],
    ['a directory', '/games', '/usr/bin', /is not a file/],
    ['a relative path', 'games/arena', '/', /relative path/],
    ['a dot path', './arena', '/games', /relative path/],
    ['a parent path', '../games/arena', '/games', /relative path/],
    ['a command on no PATH entry', 'arena', '/usr/bin', /no executable named arena/],
    ['a command with no PATH at all', 'python3', undefined, /no executable named python3/],
    // An empty entry is the working directory to exec: never looked in.
    ['a command only an empty or relative PATH entry could find', 'arena', ':games:.', /no executable named arena/],
  ])('refuses %s', (_, binary, path, why) => {
    expect(localBinaryProblem(binary, path, stateOf)).toMatch(why);
  });
});

describe('assertLocalBinaryStarts', () => {
  it("looks commands up on the configuration's own PATH when it sets one, as the game's exec will", () => {
    expect(() =>
      assertLocalBinaryStarts({ binary: 'arena', env: { PATH: '/opt/studio/bin' } }, '/usr/bin', stateOf),
    ).not.toThrow();
    expect(() =>
      assertLocalBinaryStarts({ binary: 'python3', env: { PATH: '/opt/studio/bin' } }, '/usr/bin', stateOf),
    ).toThrow(GameConfigurationBinaryError);
  });

  it('throws a 400 naming body.binary', () => {
    let thrown: unknown;
    try {
      assertLocalBinaryStarts({ binary: '/games/missing', env: {} }, '/usr/bin', stateOf);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(GameConfigurationBinaryError);
    expect(thrown).toMatchObject({
      status: 400,
      code: 'BAD_REQUEST',
      details: { fields: [{ field: 'body.binary', message: '/games/missing does not exist on this machine' }] },
    });
  });
});
