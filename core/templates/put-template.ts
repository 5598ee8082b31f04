import type { GameServerConfiguration } from '../gameservers/configuration';
import { GameConfigurationNotFoundError } from '../gameservers/errors';
import { TemplateConfigurationNotFoundError } from './errors';
import { assertTemplateFitsConfiguration, templateFromBody, type SessionTemplate } from './template';
import type { TemplateBody } from './template-schema';
import type { TemplateRepository } from './template-store';

/** What reading a configuration needs: `GameConfigurationStore` satisfies it. */
export interface ConfigurationReader {
  /** @throws GameConfigurationNotFoundError */
  get(gameId: string, version: string): Promise<GameServerConfiguration>;
}

export interface PutTemplateDependencies {
  readonly templates: Pick<TemplateRepository, 'put'>;
  readonly configurations: ConfigurationReader;
  readonly now: Date;
}

/** The configuration a dedicated template names, or the template's own 404 when it has none. */
export async function templateConfiguration(
  template: Pick<SessionTemplate, 'name' | 'gameId' | 'version'>,
  configurations: ConfigurationReader,
): Promise<GameServerConfiguration> {
  const { name, gameId = '', version = '' } = template;
  try {
    return await configurations.get(gameId, version);
  } catch (error) {
    if (error instanceof GameConfigurationNotFoundError) {
      throw new TemplateConfigurationNotFoundError(name, gameId, version, { cause: error });
    }
    throw error;
  }
}

/**
 * Stores (or replaces) a template. A dedicated template must name a configuration that
 * exists now (404 otherwise) and fit its server (400 naming `constants.maxMembers`), so an
 * admin learns of a typo when writing the template, not when players first use it.
 */
export async function putTemplate(
  name: string,
  body: TemplateBody,
  deps: PutTemplateDependencies,
): Promise<SessionTemplate> {
  const template = templateFromBody(name, body, deps.now);
  if (template.hosting === 'dedicated') {
    const configuration = await templateConfiguration(template, deps.configurations);
    assertTemplateFitsConfiguration(template, configuration, 'body.constants.maxMembers');
  }
  await deps.templates.put(template);
  return template;
}
