import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { addCatalogEntry, readCatalogPage, type CatalogPage } from '../infra/index-store';
import { decodeIndexCursor, encodeIndexCursor, type IndexListing } from '../infra/index-cursor';
import { keys } from '../infra/keys';
import { TemplateNotFoundError } from './errors';
import type { SessionTemplate } from './template';
import { templateNameSchema } from './template-schema';

/** What creating a session needs of the templates. */
export interface TemplateReader {
  /** @throws TemplateNotFoundError */
  get(name: string): Promise<SessionTemplate>;
}

/** The admin API's port: one item per template. */
export interface TemplateRepository extends TemplateReader {
  put(template: SessionTemplate): Promise<void>;
  /** @throws TemplateNotFoundError */
  delete(name: string): Promise<void>;
  /**
   * Every template, `limit` a page in name order, through the catalog index (no scan); a
   * template put a moment ago may show a moment later.
   * @throws RequestInvalidError 400 naming `query.nextToken` for a token this listing did not issue.
   */
  list(pageToken: string | undefined, limit: number): Promise<CatalogPage<SessionTemplate>>;
}

/** Tokens of the templates' catalog: an entry `<name>` is that template's item. */
const templateCatalog = {
  partitions: [keys.templateCatalogIndex],
  itemKey: (_partition: string, name: string) =>
    templateNameSchema.safeParse(name).success ? keys.sessionTemplate(name) : undefined,
} as const satisfies IndexListing;

/**
 * Session templates on the single table. Sessions copy their constants when they are
 * created, so replacing or deleting a template never changes a running session.
 */
export class TemplateStore implements TemplateRepository {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async put(template: SessionTemplate): Promise<void> {
    await this.db.send(
      new PutCommand({
        TableName: this.tableName,
        Item: {
          ...keys.sessionTemplate(template.name),
          ...keys.templateCatalogEntry(template.name),
          type: 'sessionTemplate',
          ...template,
        },
      }),
    );
  }

  async get(name: string): Promise<SessionTemplate> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.sessionTemplate(name), ConsistentRead: true }),
    );
    if (!Item) throw new TemplateNotFoundError(name);
    return templateOf(Item);
  }

  async list(pageToken: string | undefined, limit: number): Promise<CatalogPage<SessionTemplate>> {
    const page = await readCatalogPage(this.db, this.tableName, templateCatalog, { pageToken, limit });
    return { ...page, items: page.items.map(templateOf) };
  }

  /** A template stored before the catalog index gets its entry (core/upgrade/table-upgrade.ts). */
  addToCatalog(name: string): Promise<boolean> {
    return addCatalogEntry(this.db, this.tableName, keys.sessionTemplate(name), keys.templateCatalogEntry(name));
  }

  async delete(name: string): Promise<void> {
    const { Attributes } = await this.db.send(
      new DeleteCommand({ TableName: this.tableName, Key: keys.sessionTemplate(name), ReturnValues: 'ALL_OLD' }),
    );
    if (!Attributes) throw new TemplateNotFoundError(name);
  }
}

/** The same contract in memory, for unit tests of the rules that read templates. */
export class InMemoryTemplateStore implements TemplateRepository {
  private readonly templates = new Map<string, SessionTemplate>();

  constructor(initial: readonly SessionTemplate[] = []) {
    for (const template of initial) this.templates.set(template.name, structuredClone(template));
  }

  put(template: SessionTemplate): Promise<void> {
    this.templates.set(template.name, structuredClone(template));
    return Promise.resolve();
  }

  get(name: string): Promise<SessionTemplate> {
    const template = this.templates.get(name);
    return template ? Promise.resolve(structuredClone(template)) : Promise.reject(new TemplateNotFoundError(name));
  }

  delete(name: string): Promise<void> {
    if (!this.templates.delete(name)) return Promise.reject(new TemplateNotFoundError(name));
    return Promise.resolve();
  }

  /** The store's order and tokens: name order, `limit` a page. */
  async list(pageToken: string | undefined, limit: number): Promise<CatalogPage<SessionTemplate>> {
    const after = decodeIndexCursor(pageToken, templateCatalog)?.after?.gsi3sk;
    const names = [...this.templates.keys()].filter((name) => after === undefined || name > after).sort();
    const items = names.slice(0, limit).map((name) => structuredClone(this.templates.get(name)!));
    const last = items.at(-1);
    if (names.length <= limit || !last) return { items };
    const entry = { ...keys.sessionTemplate(last.name), ...keys.templateCatalogEntry(last.name) };
    return { items, nextToken: encodeIndexCursor({ partition: keys.templateCatalogIndex, after: entry }) };
  }
}

/** The template an item holds: the item without its table and index keys. */
function templateOf(item: Record<string, unknown>): SessionTemplate {
  const { pk: _pk, sk: _sk, type: _type, gsi3pk: _gsi3pk, gsi3sk: _gsi3sk, ...template } = item;
  return template as unknown as SessionTemplate;
}
