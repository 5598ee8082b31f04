import { RequestInvalidError, type FieldIssue } from '../errors';
import type { GameServerConfiguration } from '../gameservers/configuration';
import {
  isLargeSession,
  maxSessionMembers,
  sessionCustomLimits,
  type SessionConstants,
  type SessionProperties,
} from './session-model';
import { templateConfiguration, type ConfigurationReader } from '../templates/put-template';
import {
  assertTemplateFitsConfiguration,
  constantsFromTemplate,
  defaultTemplateConstants,
  type SessionTemplate,
} from '../templates/template';
import type { TemplateReader } from '../templates/template-store';

/** The fields of `POST /v1/rooms` that decide what kind of session is made. */
export interface CreateSessionRequest {
  readonly template?: string;
  readonly gameId?: string;
  readonly version?: string;
  readonly maxPlayers?: number;
  readonly constants?: { readonly custom?: Record<string, unknown> };
  readonly properties?: { readonly custom?: Record<string, unknown> };
}

type SessionHosting =
  { readonly kind: 'dedicated'; readonly configuration: GameServerConfiguration } | { readonly kind: 'peerHosted' };

export interface ResolvedSession {
  /** The template's name; null for the configuration's default template. */
  readonly template: string | null;
  readonly hosting: SessionHosting;
  readonly constants: SessionConstants;
  readonly properties: SessionProperties;
}

function invalid(field: string, message: string, sentence: string): RequestInvalidError {
  return new RequestInvalidError(sentence, [{ field, message }]);
}

/**
 * A session of more than 100 members keeps its members as items of their own, which only a
 * template with the capability `large` asks for: any other session is one item, whose budget
 * holds at most 100 members (core/rooms/item-budget.ts).
 */
export function assertSessionSizeAllowed(
  maxMembers: number,
  constants: Pick<SessionConstants, 'capabilities'> | undefined,
  field: string,
): void {
  if (maxMembers <= maxSessionMembers || isLargeSession(constants)) return;
  throw invalid(
    field,
    `must be at most ${maxSessionMembers} without a template with "capabilities": ["large"]`,
    `A room of ${maxMembers} members needs a template with "capabilities": ["large"]; without one a room holds at most ${maxSessionMembers}. Create the room from such a template (PUT /v1/admin/templates/{template}, then POST /v1/rooms with "template").`,
  );
}

/**
 * Which configuration a request names, checked against its template: the template decides,
 * and a request may repeat the template's gameId and version but never name others.
 * Without a template both are required (the configuration's default template applies).
 */
export function configurationRefOf(
  request: CreateSessionRequest,
  template: Pick<SessionTemplate, 'name' | 'hosting' | 'gameId' | 'version'> | undefined,
): { readonly gameId: string; readonly version: string } | undefined {
  if (!template) {
    const missing: FieldIssue[] = [];
    if (request.gameId === undefined) missing.push({ field: 'body.gameId', message: 'is required without template' });
    if (request.version === undefined) missing.push({ field: 'body.version', message: 'is required without template' });
    if (missing.length > 0 || request.gameId === undefined || request.version === undefined) {
      throw new RequestInvalidError('A room needs a template, or a gameId and a version.', missing);
    }
    return { gameId: request.gameId, version: request.version };
  }
  for (const field of ['gameId', 'version'] as const) {
    const given = request[field];
    if (given === undefined || given === template[field]) continue;
    throw template.hosting === 'peerHosted'
      ? invalid(
          `body.${field}`,
          'must be omitted: the template is peer-hosted',
          `Template ${template.name} is peer-hosted (no game server): omit ${field}.`,
        )
      : invalid(
          `body.${field}`,
          `must be the template's (${template[field]}) or omitted`,
          `Template ${template.name} uses ${field} ${template[field]}, not ${given}.`,
        );
  }
  return template.hosting === 'dedicated' && template.gameId !== undefined && template.version !== undefined
    ? { gameId: template.gameId, version: template.version }
    : undefined;
}

/**
 * A create request, its template (if it names one) and the configuration the template or the
 * request names (none for a peer-hosted template), made into the new session's template name,
 * hosting, constants and initial properties. Pure: the caller loads what it names.
 *
 * The creator adds to the template's `constants.custom` (its keys win; the result stays
 * within the cap) and sets the first `properties.custom`. The room starts joinable.
 */
export function resolveCreateSession(
  request: CreateSessionRequest,
  template: SessionTemplate | undefined,
  configuration: GameServerConfiguration | undefined,
): ResolvedSession {
  const ref = configurationRefOf(request, template);
  if (ref && !configuration) throw new Error('resolveCreateSession: the named configuration was not loaded');
  const hosting: SessionHosting = ref && configuration ? { kind: 'dedicated', configuration } : { kind: 'peerHosted' };
  let base: SessionConstants;
  if (template) {
    if (request.maxPlayers !== undefined && request.maxPlayers !== template.constants.maxMembers) {
      throw invalid(
        'body.maxPlayers',
        `must be omitted or ${template.constants.maxMembers}: the template fixes maxMembers`,
        `Template ${template.name} fixes ${template.constants.maxMembers} members.`,
      );
    }
    if (hosting.kind === 'dedicated') assertTemplateFitsConfiguration(template, hosting.configuration, 'body.template');
    base = constantsFromTemplate(template, hosting.kind === 'dedicated' ? hosting.configuration : undefined);
  } else {
    // configurationRefOf demanded gameId and version, so the configuration is there.
    base = defaultTemplateConstants(configuration as GameServerConfiguration, request.maxPlayers);
    assertSessionSizeAllowed(base.maxMembers, base, 'body.maxPlayers');
  }
  return {
    template: template?.name ?? null,
    hosting,
    constants: { ...base, custom: mergedConstantsCustom(base.custom, request.constants?.custom) },
    properties: { joinability: 'open', custom: request.properties?.custom ?? {} },
  };
}

function mergedConstantsCustom(
  fromTemplate: Record<string, unknown>,
  fromCreator: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (!fromCreator) return fromTemplate;
  const merged = { ...fromTemplate, ...fromCreator };
  // Each part passed the storable-JSON check on its own; only their sum can break the cap.
  const bytes = Buffer.byteLength(JSON.stringify(merged));
  if (bytes > sessionCustomLimits.constantsBytes) {
    throw invalid(
      'body.constants.custom',
      `with the template's custom constants must be at most ${sessionCustomLimits.constantsBytes} bytes of JSON`,
      `constants.custom and the template's own come to ${bytes} bytes; the limit is ${sessionCustomLimits.constantsBytes}.`,
    );
  }
  return merged;
}

export interface ResolveCreateDependencies {
  readonly templates: TemplateReader;
  readonly configurations: ConfigurationReader;
}

/**
 * Loads what a create request names (its template, then the configuration) and resolves it.
 *
 * @throws TemplateNotFoundError, TemplateConfigurationNotFoundError (a template whose
 *   configuration was deleted), GameConfigurationNotFoundError (no template), RequestInvalidError
 */
export async function resolveCreateRequest(
  request: CreateSessionRequest,
  deps: ResolveCreateDependencies,
): Promise<ResolvedSession> {
  const template = request.template === undefined ? undefined : await deps.templates.get(request.template);
  const ref = configurationRefOf(request, template);
  let configuration: GameServerConfiguration | undefined;
  if (ref && template) configuration = await templateConfiguration(template, deps.configurations);
  else if (ref) configuration = await deps.configurations.get(ref.gameId, ref.version);
  return resolveCreateSession(request, template, configuration);
}
