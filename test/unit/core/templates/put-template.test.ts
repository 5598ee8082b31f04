import { GameConfigurationNotFoundError } from '../../../../core/gameservers/errors';
import { TemplateConfigurationNotFoundError, TemplateNotFoundError } from '../../../../core/templates/errors';
import { putTemplate } from '../../../../core/templates/put-template';
import { InMemoryTemplateStore } from '../../../../core/templates/template-store';
import { aConfiguration, configurationsOf } from '../../../helpers/session-factories';

const now = new Date('2026-03-01T12:00:00.000Z');
const constants = { maxMembers: 4, visibility: 'open' as const, timeouts: {}, custom: {} };

describe('putTemplate', () => {
  it('stores a dedicated template whose configuration exists and takes its members', async () => {
    const templates = new InMemoryTemplateStore();
    const stored = await putTemplate(
      'squad',
      { gameId: 'arena', version: '1.0.0', constants },
      { templates, configurations: configurationsOf(aConfiguration({ maxPlayers: 4 })), now },
    );
    expect(await templates.get('squad')).toEqual(stored);
    expect(stored).toMatchObject({ hosting: 'dedicated', gameId: 'arena', version: '1.0.0' });
  });

  it('answers 404 naming the template and configuration when the configuration does not exist, and stores nothing', async () => {
    const templates = new InMemoryTemplateStore();
    const attempt = putTemplate(
      'squad',
      { gameId: 'arena', version: '9.9.9', constants },
      { templates, configurations: configurationsOf(aConfiguration()), now },
    );
    await expect(attempt).rejects.toBeInstanceOf(TemplateConfigurationNotFoundError);
    await expect(attempt).rejects.toMatchObject({
      code: 'NOT_FOUND',
      details: { template: 'squad', gameId: 'arena', version: '9.9.9' },
      cause: expect.any(GameConfigurationNotFoundError),
    });
    await expect(templates.get('squad')).rejects.toBeInstanceOf(TemplateNotFoundError);
  });

  it("refuses more members than the configuration's maxPlayers: 400 naming body.constants.maxMembers", async () => {
    const templates = new InMemoryTemplateStore();
    await expect(
      putTemplate(
        'squad',
        { gameId: 'arena', version: '1.0.0', constants: { ...constants, maxMembers: 5 } },
        { templates, configurations: configurationsOf(aConfiguration({ maxPlayers: 4 })), now },
      ),
    ).rejects.toMatchObject({
      code: 'BAD_REQUEST',
      details: { fields: [expect.objectContaining({ field: 'body.constants.maxMembers' })] },
    });
    await expect(templates.get('squad')).rejects.toBeInstanceOf(TemplateNotFoundError);
  });

  it('stores a peer-hosted template without looking for a configuration', async () => {
    const templates = new InMemoryTemplateStore();
    const configurations = { get: jest.fn() };
    const stored = await putTemplate('lobby', { constants }, { templates, configurations, now });
    expect(stored.hosting).toBe('peerHosted');
    expect(configurations.get).not.toHaveBeenCalled();
  });
});
