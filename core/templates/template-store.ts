import { DeleteCommand, GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { keys } from '../infra/keys';
import { TemplateNotFoundError } from './errors';
import type { SessionTemplate } from './template';

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
}

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
        Item: { ...keys.sessionTemplate(template.name), type: 'sessionTemplate', ...template },
      }),
    );
  }

  async get(name: string): Promise<SessionTemplate> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.sessionTemplate(name), ConsistentRead: true }),
    );
    if (!Item) throw new TemplateNotFoundError(name);
    const { pk: _pk, sk: _sk, type: _type, ...template } = Item;
    return template as SessionTemplate;
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
}
