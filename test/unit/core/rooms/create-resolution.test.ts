import { GameConfigurationNotFoundError } from '../../../../core/gameservers/errors';
import { TemplateConfigurationNotFoundError, TemplateNotFoundError } from '../../../../core/templates/errors';
import {
  configurationRefOf,
  resolveCreateRequest,
  resolveCreateSession,
  type CreateSessionRequest,
} from '../../../../core/rooms/create-resolution';
import { InMemoryTemplateStore } from '../../../../core/templates/template-store';
import { aConfiguration, aPeerHostedTemplate, aTemplate, configurationsOf } from '../../../helpers/session-factories';

const arena = aConfiguration({ gameId: 'arena', version: '1.0.0', maxPlayers: 16, reservationTimeoutS: 45 });
const duel = aTemplate({
  name: 'duel',
  constants: { maxMembers: 2, visibility: 'private', timeouts: { readyMs: 10_000 }, custom: { mode: 'duel', bo: 3 } },
});
const lobby = aPeerHostedTemplate({ name: 'lobby' });

function deps(templates = [duel, lobby], configurations = [arena]) {
  return { templates: new InMemoryTemplateStore(templates), configurations: configurationsOf(...configurations) };
}

function fieldsOfError(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    return ((error as { details?: { fields?: { field: string }[] } }).details?.fields ?? []).map((f) => f.field);
  }
  throw new Error('expected a throw');
}

describe('resolveCreateSession', () => {
  it('a request without a template gets the default template of its configuration', () => {
    expect(resolveCreateSession({ gameId: 'arena', version: '1.0.0' }, undefined, arena)).toEqual({
      template: null,
      hosting: { kind: 'dedicated', configuration: arena },
      constants: {
        maxMembers: 16,
        visibility: 'open',
        timeouts: { reservedMs: 45_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
        custom: {},
      },
      properties: { joinability: 'open', custom: {} },
    });
  });

  it('without a template, maxPlayers and the custom parts still apply', () => {
    const resolved = resolveCreateSession(
      {
        gameId: 'arena',
        version: '1.0.0',
        maxPlayers: 4,
        constants: { custom: { a: 1 } },
        properties: { custom: { b: 2 } },
      },
      undefined,
      arena,
    );
    expect([resolved.constants.maxMembers, resolved.constants.custom, resolved.properties.custom]).toEqual([
      4,
      { a: 1 },
      { b: 2 },
    ]);
  });

  it("a dedicated template's constants, its timeouts filled in from the configuration", () => {
    const resolved = resolveCreateSession({ template: 'duel' }, duel, arena);
    expect(resolved).toEqual({
      template: 'duel',
      hosting: { kind: 'dedicated', configuration: arena },
      constants: {
        maxMembers: 2,
        visibility: 'private',
        timeouts: { reservedMs: 45_000, readyMs: 10_000, inactiveMs: null, sessionEmptyMs: null },
        custom: { mode: 'duel', bo: 3 },
        migrateHost: false,
        hostTimeoutMs: 15_000,
      },
      properties: { joinability: 'open', custom: {} },
    });
  });

  it("the creator's constants.custom adds to the template's, its own keys winning", () => {
    const resolved = resolveCreateSession({ template: 'duel', constants: { custom: { bo: 5, seed: 7 } } }, duel, arena);
    expect(resolved.constants.custom).toEqual({ mode: 'duel', bo: 5, seed: 7 });
  });

  it('a peer-hosted template makes a session with no server', () => {
    const resolved = resolveCreateSession(
      { template: 'lobby', properties: { custom: { topic: 'chess' } } },
      lobby,
      undefined,
    );
    expect(resolved).toMatchObject({
      template: 'lobby',
      hosting: { kind: 'peerHosted' },
      constants: { timeouts: { reservedMs: 30_000, sessionEmptyMs: 0 } },
      properties: { joinability: 'open', custom: { topic: 'chess' } },
    });
  });

  it("accepts a request that repeats the template's gameId, version and maxMembers", () => {
    const request = { template: 'duel', gameId: 'arena', version: '1.0.0', maxPlayers: 2 };
    expect(resolveCreateSession(request, duel, arena).hosting).toEqual({ kind: 'dedicated', configuration: arena });
  });

  it.each<[string, CreateSessionRequest, typeof duel | undefined, string[]]>([
    ['no template and no gameId', { version: '1.0.0' }, undefined, ['body.gameId']],
    ['no template and no version', { gameId: 'arena' }, undefined, ['body.version']],
    ['no template, no gameId, no version', {}, undefined, ['body.gameId', 'body.version']],
    ['a template and a different gameId', { template: 'duel', gameId: 'other' }, duel, ['body.gameId']],
    ['a template and a different version', { template: 'duel', version: '2.0.0' }, duel, ['body.version']],
    ['a peer-hosted template and a gameId', { template: 'lobby', gameId: 'arena' }, lobby, ['body.gameId']],
    ['a peer-hosted template and a version', { template: 'lobby', version: '1.0.0' }, lobby, ['body.version']],
    ['a template and a different maxPlayers', { template: 'duel', maxPlayers: 3 }, duel, ['body.maxPlayers']],
    [
      "constants.custom that, with the template's, passes 2 KB",
      { template: 'duel', constants: { custom: { blob: 'x'.repeat(2020) } } },
      duel,
      ['body.constants.custom'],
    ],
  ])('refuses %s: 400 naming the field', (_name, request, template, fields) => {
    expect(fieldsOfError(() => resolveCreateSession(request, template, arena))).toEqual(fields);
  });

  it("refuses a template grown past its configuration's players since it was stored: 400 naming body.template", () => {
    expect(
      fieldsOfError(() => resolveCreateSession({ template: 'duel' }, duel, aConfiguration({ maxPlayers: 1 }))),
    ).toEqual(['body.template']);
  });

  it("refuses more players than the configuration's without a template, as before", () => {
    expect(
      fieldsOfError(() =>
        resolveCreateSession({ gameId: 'arena', version: '1.0.0', maxPlayers: 17 }, undefined, arena),
      ),
    ).toEqual(['body.maxPlayers']);
  });
});

describe('configurationRefOf', () => {
  it("names the template's configuration, or none for a peer-hosted one", () => {
    expect(configurationRefOf({ template: 'duel' }, duel)).toEqual({ gameId: 'arena', version: '1.0.0' });
    expect(configurationRefOf({ template: 'lobby' }, lobby)).toBeUndefined();
    expect(configurationRefOf({ gameId: 'g', version: 'v' }, undefined)).toEqual({ gameId: 'g', version: 'v' });
  });
});

describe('resolveCreateRequest', () => {
  it("loads the template, then the template's configuration", async () => {
    const resolved = await resolveCreateRequest({ template: 'duel' }, deps());
    expect(resolved.hosting).toEqual({ kind: 'dedicated', configuration: arena });
  });

  it('loads no configuration for a peer-hosted template', async () => {
    const configurations = { get: jest.fn() };
    const resolved = await resolveCreateRequest({ template: 'lobby' }, { ...deps(), configurations });
    expect([resolved.hosting.kind, configurations.get.mock.calls.length]).toEqual(['peerHosted', 0]);
  });

  it('answers 404 for an unknown template', async () => {
    await expect(resolveCreateRequest({ template: 'nope' }, deps())).rejects.toBeInstanceOf(TemplateNotFoundError);
  });

  it("answers the template's 404 when its configuration was deleted", async () => {
    await expect(resolveCreateRequest({ template: 'duel' }, deps([duel], []))).rejects.toBeInstanceOf(
      TemplateConfigurationNotFoundError,
    );
  });

  it('answers the configuration 404 without a template, as before', async () => {
    await expect(resolveCreateRequest({ gameId: 'arena', version: '9' }, deps())).rejects.toBeInstanceOf(
      GameConfigurationNotFoundError,
    );
  });

  it('refuses a mismatched gameId before loading any configuration', async () => {
    const configurations = { get: jest.fn() };
    await expect(
      resolveCreateRequest({ template: 'duel', gameId: 'other' }, { ...deps(), configurations }),
    ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
    expect(configurations.get).not.toHaveBeenCalled();
  });
});
