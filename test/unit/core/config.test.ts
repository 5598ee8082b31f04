import { config, ConfigInvalidError, parseConfig, provideConfigSecrets, resetConfig } from '../../../core/infra/config';

const minimal = {
  TABLE_NAME: 'rooms',
  AUTH_ISSUER: 'https://id.example',
};

describe('parseConfig', () => {
  it('reads a minimal deployed environment with defaults', () => {
    expect(parseConfig(minimal)).toMatchObject({ tableName: 'rooms', region: 'us-east-1', maxBodyBytes: 65536 });
  });

  it.each([
    ['TABLE_NAME', { ...minimal, TABLE_NAME: undefined }],
    ['AUTH_ISSUER', { ...minimal, AUTH_ISSUER: undefined }],
    // Its keys are found through its OpenID discovery document, which only an https issuer has.
    ['AUTH_ISSUER', { ...minimal, AUTH_ISSUER: 'http://id.example' }],
    ['AUTH_ISSUER', { ...minimal, AUTH_ISSUER: 'roomkeeper-local' }],
    ['MAX_BODY_BYTES', { ...minimal, MAX_BODY_BYTES: 'lots' }],
  ])('fails fast naming %s', (variable, env) => {
    expect(() => parseConfig(env)).toThrow(ConfigInvalidError);
    expect(() => parseConfig(env)).toThrow(variable);
  });

  it('reads the cost bounds (docs/cost-bounds.md), with their defaults, and refuses a cap of 0', () => {
    expect(parseConfig(minimal).costBounds).toEqual({
      emptyRoomGraceS: 60,
      maxLifetimeS: 21_600,
      maxRunningServers: 200,
      maxServersPerConfiguration: 100,
      orphanGraceS: 300,
    });
    expect(
      parseConfig({ ...minimal, EMPTY_ROOM_GRACE_S: '30', MAX_ROOM_LIFETIME_S: '3600', MAX_RUNNING_SERVERS: '12' })
        .costBounds,
    ).toMatchObject({ emptyRoomGraceS: 30, maxLifetimeS: 3600, maxRunningServers: 12 });
    expect(() => parseConfig({ ...minimal, MAX_RUNNING_SERVERS: '0' })).toThrow('MAX_RUNNING_SERVERS');
  });

  it('names the platform token issuer, by default roomkeeper-platform', () => {
    expect(parseConfig(minimal).auth.platformIssuer).toBe('roomkeeper-platform');
    expect(parseConfig({ ...minimal, PLATFORM_TOKEN_ISSUER: 'rk-prod' }).auth.platformIssuer).toBe('rk-prod');
  });

  it.each([
    ['an identity provider issuer equal to the platform issuer', { ...minimal, AUTH_ISSUER: 'roomkeeper-platform' }],
    ['an API audience in the platform namespace', { ...minimal, AUTH_AUDIENCE: 'roomkeeper:room:r1' }],
  ])('refuses %s', (_name, env) => {
    expect(() => parseConfig(env)).toThrow(ConfigInvalidError);
    expect(() => parseConfig(env)).toThrow('PLATFORM_TOKEN_ISSUER');
  });
});

describe('heartbeat cadence (docs/scale.md)', () => {
  it('gives a spaced-out interval the same five intervals of silence, never under 10 s', () => {
    expect(parseConfig(minimal)).toMatchObject({ heartbeatIntervalS: 2, heartbeatTimeoutS: 10 });
    expect(parseConfig({ ...minimal, HEARTBEAT_INTERVAL_S: '10' })).toMatchObject({
      heartbeatIntervalS: 10,
      heartbeatTimeoutS: 50,
    });
    expect(parseConfig({ ...minimal, HEARTBEAT_INTERVAL_S: '0.5' })).toMatchObject({ heartbeatTimeoutS: 10 });
  });

  it('refuses a timeout under two intervals: one late heartbeat would read as a dead room', () => {
    const env = { ...minimal, HEARTBEAT_INTERVAL_S: '10', HEARTBEAT_TIMEOUT_S: '10' };
    expect(() => parseConfig(env)).toThrow(ConfigInvalidError);
    expect(() => parseConfig(env)).toThrow('HEARTBEAT_TIMEOUT_S');
    expect(parseConfig({ ...env, HEARTBEAT_TIMEOUT_S: '20' })).toMatchObject({ heartbeatTimeoutS: 20 });
  });
});

describe('secrets given in memory (provideConfigSecrets)', () => {
  const saved = { ...process.env };
  afterEach(() => {
    resetConfig();
    process.env = { ...saved };
  });

  it('reach the configuration without entering process.env, and win over a variable of the same name', () => {
    Object.assign(process.env, minimal, { TOKEN_SIGNING_JWK: '{"from":"env"}' });
    provideConfigSecrets({ DEV_SIGNING_JWK: '{"dev":1}', TOKEN_SIGNING_JWK: '{"platform":1}' });

    expect([config().auth.devSigningJwk, config().tokenSigningJwk]).toEqual(['{"dev":1}', '{"platform":1}']);
    expect(process.env.DEV_SIGNING_JWK).toBeUndefined();
    expect(process.env.TOKEN_SIGNING_JWK).toBe('{"from":"env"}');
  });

  it('are forgotten by resetConfig', () => {
    Object.assign(process.env, minimal);
    provideConfigSecrets({ TOKEN_SIGNING_JWK: '{"platform":1}' });
    resetConfig();
    expect(config().tokenSigningJwk).toBeUndefined();
  });
});
