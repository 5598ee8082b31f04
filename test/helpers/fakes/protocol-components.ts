import { hasOwnComponents, type ProtocolComponents } from '../../../core/versions/protocol-store';
import type { ComponentHashes, Protocol } from '../../../core/versions/protocol';

/** `ProtocolComponents` in memory: like the table, a map is kept only under its own hash, once. */
export class InMemoryProtocolComponents implements ProtocolComponents {
  readonly items = new Map<string, ComponentHashes>();

  async remember(protocol: Protocol): Promise<void> {
    if (hasOwnComponents(protocol) && !this.items.has(protocol.hash)) {
      this.items.set(protocol.hash, { ...protocol.components });
    }
  }

  async componentsOf(hash: string): Promise<ComponentHashes | undefined> {
    const components = this.items.get(hash);
    return components && { ...components };
  }
}
