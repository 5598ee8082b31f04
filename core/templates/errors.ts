import { PlatformError } from '../errors';

export class TemplateNotFoundError extends PlatformError {
  override readonly name = 'TemplateNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(readonly template: string) {
    super(`No session template named ${template}.`, { details: { template } });
  }
}

/**
 * A dedicated-server template must name a configuration that exists when it is stored; one
 * deleted later fails the creation of rooms from the template the same way.
 */
export class TemplateConfigurationNotFoundError extends PlatformError {
  override readonly name = 'TemplateConfigurationNotFoundError';
  readonly code = 'NOT_FOUND';
  constructor(
    readonly template: string,
    readonly gameId: string,
    readonly version: string,
    options: { cause?: unknown } = {},
  ) {
    super(
      `Template ${template} names game ${gameId} version ${version}, which has no game server configuration; PUT the configuration first.`,
      { details: { template, gameId, version }, cause: options.cause },
    );
  }
}
