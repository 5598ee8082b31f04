import {
  assertTemplateFitsConfiguration,
  constantsFromTemplate,
  defaultTemplateConstants,
  templateFromBody,
} from '../../../../core/templates/template';
import { aConfiguration, aPeerHostedTemplate, aTemplate } from '../../../helpers/session-factories';

describe('defaultTemplateConstants', () => {
  it("gives a configuration-based room the configuration's players, open visibility and its reservation timeout", () => {
    expect(defaultTemplateConstants(aConfiguration({ maxPlayers: 8, reservationTimeoutS: 30 }))).toEqual({
      maxMembers: 8,
      visibility: 'open',
      timeouts: { reservedMs: 30_000, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
      custom: {},
    });
  });

  it("takes the request's smaller maxPlayers", () => {
    expect(defaultTemplateConstants(aConfiguration({ maxPlayers: 8 }), 3).maxMembers).toBe(3);
  });

  it("refuses more players than the configuration's: 400 naming body.maxPlayers", () => {
    expect(() => defaultTemplateConstants(aConfiguration({ maxPlayers: 8 }), 9)).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        details: { fields: [{ field: 'body.maxPlayers', message: 'must be at most 8' }] },
      }),
    );
  });
});

describe('constantsFromTemplate', () => {
  const configuration = aConfiguration({ reservationTimeoutS: 45 });

  it.each([
    ['dedicated, nothing written', aTemplate(), configuration, [45_000, null, null, null]],
    ['peer-hosted, nothing written', aPeerHostedTemplate(), undefined, [30_000, null, null, 0]],
    [
      'dedicated, every timeout written',
      aTemplate({
        constants: {
          maxMembers: 2,
          visibility: 'open',
          timeouts: { reservedMs: 1, readyMs: 2, inactiveMs: 3, sessionEmptyMs: 4 },
          custom: {},
        },
      }),
      configuration,
      [1, 2, 3, 4],
    ],
    [
      'peer-hosted, explicit nulls stay never',
      aPeerHostedTemplate({
        constants: {
          maxMembers: 4,
          visibility: 'open',
          timeouts: { reservedMs: null, readyMs: null, inactiveMs: null, sessionEmptyMs: null },
          custom: {},
        },
      }),
      undefined,
      [null, null, null, null],
    ],
    [
      'dedicated, zeros stay at once',
      aTemplate({
        constants: { maxMembers: 2, visibility: 'open', timeouts: { readyMs: 0, sessionEmptyMs: 0 }, custom: {} },
      }),
      configuration,
      [45_000, 0, null, 0],
    ],
  ])('%s', (_name, template, config, [reservedMs, readyMs, inactiveMs, sessionEmptyMs]) => {
    expect(constantsFromTemplate(template, config).timeouts).toEqual({
      reservedMs,
      readyMs,
      inactiveMs,
      sessionEmptyMs,
    });
  });

  it('copies maxMembers, visibility and custom', () => {
    const template = aTemplate({
      constants: { maxMembers: 2, visibility: 'private', timeouts: {}, custom: { mode: 'ranked' } },
    });
    expect(constantsFromTemplate(template, configuration)).toMatchObject({
      maxMembers: 2,
      visibility: 'private',
      custom: { mode: 'ranked' },
    });
  });
});

describe('assertTemplateFitsConfiguration', () => {
  it('lets a template with up to maxPlayers members through', () => {
    expect(() =>
      assertTemplateFitsConfiguration(aTemplate(), aConfiguration({ maxPlayers: 2 }), 'body.constants.maxMembers'),
    ).not.toThrow();
  });

  it('refuses more members than the server takes, naming the given field', () => {
    expect(() =>
      assertTemplateFitsConfiguration(aTemplate(), aConfiguration({ maxPlayers: 1 }), 'body.constants.maxMembers'),
    ).toThrow(
      expect.objectContaining({
        code: 'BAD_REQUEST',
        details: { fields: [expect.objectContaining({ field: 'body.constants.maxMembers' })] },
      }),
    );
  });
});

describe('templateFromBody', () => {
  const now = new Date('2026-03-01T12:00:00.000Z');
  const constants = { maxMembers: 2, visibility: 'open' as const, timeouts: {}, custom: {} };

  it('is dedicated when gameId and version are given', () => {
    expect(templateFromBody('duel', { gameId: 'arena', version: '1.0.0', constants }, now)).toEqual({
      name: 'duel',
      hosting: 'dedicated',
      gameId: 'arena',
      version: '1.0.0',
      constants,
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
  });

  it('is peer-hosted without them', () => {
    expect(templateFromBody('lobby', { constants }, now)).toEqual({
      name: 'lobby',
      hosting: 'peerHosted',
      constants,
      updatedAt: '2026-03-01T12:00:00.000Z',
    });
  });
});
