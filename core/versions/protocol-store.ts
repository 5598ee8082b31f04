import { GetCommand, PutCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import { setHashOf, type ComponentHashes, type Protocol } from './protocol';

/**
 * Builds' component maps, one item per set hash. A map is kept under the hash it hashes to
 * (`setHashOf`), so whoever reports it (a hostile game server included) can only store the one
 * map that hash names: the item is never changed once written, and a reader may keep it.
 * Read only to explain a mismatch; never on a join's path.
 */
export interface ProtocolComponents {
  /** Keeps the protocol's component map under its hash, if it has one and the hash is its own. */
  remember(protocol: Protocol): Promise<void>;
  /** The component map a build of this set hash reported, if any did. */
  componentsOf(hash: string): Promise<ComponentHashes | undefined>;
}

/** Whether a protocol carries a component map that is its hash's own (the store keeps nothing else). */
export function hasOwnComponents(protocol: Protocol): protocol is Protocol & { components: ComponentHashes } {
  return protocol.components !== undefined && setHashOf(protocol.components) === protocol.hash;
}

export class ProtocolComponentStore implements ProtocolComponents {
  /** Hashes this process stored or read: their items exist and never change. */
  private readonly known = new Map<string, ComponentHashes>();

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly knownLimit = 1_000,
  ) {}

  async remember(protocol: Protocol): Promise<void> {
    if (!hasOwnComponents(protocol) || this.known.has(protocol.hash)) return;
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: {
            ...keys.protocolComponents(protocol.hash),
            type: 'protocolComponents',
            components: protocol.components,
          },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      );
    } catch (error) {
      // Stored already, by another server of the same build: the same map.
      if (!isConditionFailure(error)) throw error;
    }
    this.keep(protocol.hash, protocol.components);
  }

  async componentsOf(hash: string): Promise<ComponentHashes | undefined> {
    const known = this.known.get(hash);
    if (known) return known;
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.protocolComponents(hash) }),
    );
    const components = Item?.components as ComponentHashes | undefined;
    if (components) this.keep(hash, components);
    return components;
  }

  private keep(hash: string, components: ComponentHashes): void {
    if (this.known.size >= this.knownLimit) this.known.delete(this.known.keys().next().value as string);
    this.known.set(hash, components);
  }
}
