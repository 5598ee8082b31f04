import { connectionBounds, liveSocketsAfterPrune } from '../../../core/live/bounds';
import type {
  ConnectResult,
  ForgottenConnection,
  LiveConnection,
  LiveConnections,
  SubscribeResult,
  Subscription,
  SubscriptionOptions,
} from '../../../core/live/subscription-store';

/**
 * `LiveConnections` in Maps, for unit tests, with the DynamoDB store's semantics: the bounds
 * per account and per connection, expiry after the socket's longest life, a forgotten
 * connection taking its subscriptions with it.
 */
export class InMemoryLiveSubscriptions implements LiveConnections {
  private readonly connections = new Map<string, LiveConnection>();
  /** roomId → connectionId → subscription. */
  private readonly rooms = new Map<string, Map<string, Subscription>>();

  constructor(private readonly now: () => Date = () => new Date()) {}

  async connect(
    connection: Pick<LiveConnection, 'connectionId' | 'account' | 'admin'>,
    now: Date,
  ): Promise<ConnectResult> {
    const at = now.getTime();
    const mine = Object.fromEntries(
      [...this.connections.values()]
        .filter((c) => c.account === connection.account)
        .map((c) => [c.connectionId, c.connectedAt]),
    );
    const { live, stale } = liveSocketsAfterPrune(mine, at);
    if (live >= connectionBounds.perAccount) return 'too-many-connections';
    for (const id of stale) await this.forgetConnection(id);
    this.connections.set(connection.connectionId, { ...connection, connectedAt: at, rooms: [] });
    return 'connected';
  }

  async connection(connectionId: string): Promise<LiveConnection | undefined> {
    const found = this.connections.get(connectionId);
    return found && this.unexpired(found) ? structuredClone(found) : undefined;
  }

  async subscribe(
    connection: LiveConnection,
    roomId: string,
    options: SubscriptionOptions,
    _now: Date,
  ): Promise<SubscribeResult> {
    const held = this.connections.get(connection.connectionId);
    if (!held) return 'no-connection';
    if (!held.rooms.includes(roomId) && held.rooms.length >= connectionBounds.subscriptionsPerConnection)
      return 'too-many-subscriptions';
    if (!held.rooms.includes(roomId))
      this.connections.set(held.connectionId, { ...held, rooms: [...held.rooms, roomId] });
    const room = this.rooms.get(roomId) ?? new Map<string, Subscription>();
    room.set(held.connectionId, {
      connectionId: held.connectionId,
      roomId,
      account: held.account,
      admin: held.admin,
      ...options,
    });
    this.rooms.set(roomId, room);
    return 'subscribed';
  }

  async subscribersOf(roomId: string): Promise<Subscription[]> {
    return [...(this.rooms.get(roomId)?.values() ?? [])]
      .filter((s) => {
        const connection = this.connections.get(s.connectionId);
        return connection === undefined || this.unexpired(connection);
      })
      .map((s) => ({ ...s }));
  }

  async endSubscription(roomId: string, connectionId: string): Promise<void> {
    this.rooms.get(roomId)?.delete(connectionId);
    const held = this.connections.get(connectionId);
    if (held) this.connections.set(connectionId, { ...held, rooms: held.rooms.filter((r) => r !== roomId) });
  }

  async forgetConnection(connectionId: string): Promise<ForgottenConnection | undefined> {
    const held = this.connections.get(connectionId);
    if (!held) return undefined;
    this.connections.delete(connectionId);
    for (const roomId of held.rooms) this.rooms.get(roomId)?.delete(connectionId);
    return held;
  }

  async otherSocketsWatch(account: string, roomId: string, connectionId: string): Promise<boolean> {
    return [...(this.rooms.get(roomId)?.values() ?? [])].some(
      (s) => s.account === account && s.connectionId !== connectionId,
    );
  }

  async socketsOf(account: string): Promise<string[]> {
    return [...this.connections.values()]
      .filter((c) => c.account === account && this.unexpired(c))
      .map((c) => c.connectionId);
  }

  private unexpired(connection: LiveConnection): boolean {
    return connection.connectedAt + connectionBounds.maxLifetimeMs > this.now().getTime();
  }
}
