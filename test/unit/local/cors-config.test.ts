import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CorsOriginInvalidError, corsPolicy, parseCorsOrigins } from '../../../lambdas/http/cors';
import { loadLocalConfigFile, LocalConfigFileError } from '../../../local/config-file';

function load(file: unknown) {
  const path = join(mkdtempSync(join(tmpdir(), 'rk-config-')), 'roomkeeper.json');
  writeFileSync(path, JSON.stringify(file));
  return loadLocalConfigFile(path);
}

describe('CORS origins: the local configuration file', () => {
  it('has none unless it says so', () => {
    expect(load({}).cors).toBeUndefined();
  });

  it('takes allowOrigins: exact origins or *', () => {
    expect(load({ cors: { allowOrigins: ['http://localhost:5173', '*'] } }).cors).toEqual({
      allowOrigins: ['http://localhost:5173', '*'],
    });
  });

  it.each(['http://localhost:5173/', 'localhost:5173', 'HTTP://LOCALHOST:5173', 'ftp://files.example.com'])(
    'refuses %s, naming the field',
    (origin) => {
      expect(() => load({ cors: { allowOrigins: [origin] } })).toThrow(LocalConfigFileError);
      expect(() => load({ cors: { allowOrigins: [origin] } })).toThrow(/cors\.allowOrigins\.0: must be an origin/);
    },
  );
});

describe('CORS origins: a comma-separated list (--cors-origins, ROOMKEEPER_CORS_ORIGINS, -c corsOrigins)', () => {
  it('splits and trims; an empty list is no CORS', () => {
    expect(parseCorsOrigins(' https://a.example.com ,http://localhost:3001,', 'x')).toEqual([
      'https://a.example.com',
      'http://localhost:3001',
    ]);
    expect(corsPolicy(parseCorsOrigins('', 'x'))).toBeUndefined();
  });

  it('names the source and the origin that is not one', () => {
    expect(() => parseCorsOrigins('https://a.example.com,https://b.example.com/app', '--cors-origins')).toThrow(
      new CorsOriginInvalidError(
        '--cors-origins: "https://b.example.com/app" must be an origin such as https://game.example.com or http://localhost:5173 (no path), or *.',
      ),
    );
  });
});
