import {
  DeleteCommand,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import { RequestInvalidError } from '../errors';
import { conditionFailedAt, isConditionFailure, retryOnContention } from '../infra/dependency-errors';
import { keys } from '../infra/keys';
import type { PlatformCache } from '../infra/platform-cache';
import { FleetConflictError, HostNotFoundError, RegionNotFoundError } from './errors';
import {
  defaultHeartbeatTimeoutS,
  freshSince,
  type Host,
  type HostBody,
  type HostHeartbeat,
  type HostPatch,
  type Region,
} from './fleet-model';

export interface Fleet {
  readonly regions: readonly Region[];
  readonly hosts: readonly Host[];
}

/** What placement needs of the fleet: all of it, in one read. */
export interface FleetReader {
  read(): Promise<Fleet>;
  /**
   * The regions as this process read them at most the `fleet` bound of
   * core/infra/platform-cache.ts ago (this process's own region writes are seen at once):
   * enough to rank regions, never to judge hosts.
   */
  recentRegions?(): Promise<readonly Region[]>;
}

/**
 * Regions and hosts on the single table, all in one partition (`FLEET`): a fleet is dozens of
 * items, so placement reads it whole with one Query. A host's `placed` counter is changed only
 * inside the server-slot transactions (core/gameservers/server-slot-store.ts), with the
 * host's health as their condition: `hostClaim` and `hostRelease` below.
 */
export class FleetStore implements FleetReader {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
    /** The process's one cache (`Platform.cache`): a region written through any store of the process is read at once. */
    private readonly cache: PlatformCache,
  ) {}

  async read(): Promise<Fleet> {
    const regions: Region[] = [];
    const hosts: Host[] = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk',
          ExpressionAttributeValues: { ':pk': keys.fleetPartition },
          ConsistentRead: true,
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        if (item.type === 'region') regions.push(regionOf(item));
        else if (item.type === 'host') hosts.push(hostOf(item));
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return { regions, hosts };
  }

  recentRegions(): Promise<readonly Region[]> {
    return this.cache.read('fleet', regionsKey, async () => (await this.read()).regions);
  }

  /** Creates or replaces a region; `default: true` takes the flag from any other region in the same write. */
  async putRegion(region: Region): Promise<Region> {
    try {
      return await this.writeRegion(region);
    } finally {
      // After the write: a read that began before it and ends after it is dropped too.
      this.cache.forget('fleet', regionsKey);
    }
  }

  private async writeRegion(region: Region): Promise<Region> {
    await retryOnContention(
      async () => {
        const { regions } = await this.read();
        const formerDefaults = region.default ? regions.filter((r) => r.default && r.name !== region.name) : [];
        await this.db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: this.tableName, Item: { ...keys.region(region.name), type: 'region', ...region } } },
              ...formerDefaults.map((r) => ({
                Update: {
                  TableName: this.tableName,
                  Key: keys.region(r.name),
                  UpdateExpression: 'SET #default = :false',
                  ConditionExpression: 'attribute_exists(pk)',
                  ExpressionAttributeNames: { '#default': 'default' },
                  ExpressionAttributeValues: { ':false': false },
                },
              })),
            ],
          }),
        );
      },
      { maxAttempts: 5, sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    );
    return region;
  }

  /** Removes a region that has no hosts left. */
  async deleteRegion(name: string): Promise<void> {
    try {
      await this.removeRegion(name);
    } finally {
      this.cache.forget('fleet', regionsKey);
    }
  }

  private async removeRegion(name: string): Promise<void> {
    const { regions, hosts } = await this.read();
    if (!regions.some((r) => r.name === name)) throw new RegionNotFoundError(name);
    const inside = hosts.filter((h) => h.region === name).map((h) => h.hostId);
    if (inside.length > 0) {
      throw new FleetConflictError(`Region '${name}' still has hosts (${inside.join(', ')}); remove them first.`, {
        details: { hosts: inside },
      });
    }
    await this.db.send(new DeleteCommand({ TableName: this.tableName, Key: keys.region(name) }));
  }

  /** Adds a host to an existing region; a second host of the same id is refused. */
  async addHost(body: HostBody, now: Date): Promise<Host> {
    const host: Host = {
      ...body,
      heartbeatTimeoutS: body.heartbeatTimeoutS ?? defaultHeartbeatTimeoutS[body.ecs ? 'ecs' : 'local'],
      draining: false,
      placed: 0,
      createdAt: now.toISOString(),
    };
    try {
      await this.db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              ConditionCheck: {
                TableName: this.tableName,
                Key: keys.region(body.region),
                ConditionExpression: 'attribute_exists(pk)',
              },
            },
            {
              Put: {
                TableName: this.tableName,
                Item: { ...keys.host(body.hostId), type: 'host', ...host },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      if (conditionFailedAt(error, 0)) {
        throw new RequestInvalidError(`Region '${body.region}' does not exist; create it first.`, [
          { field: 'body.region', message: 'must name an existing region' },
        ]);
      }
      throw new FleetConflictError(`A host '${body.hostId}' exists already; remove it first or choose another id.`);
    }
    return host;
  }

  async getHost(hostId: string): Promise<Host> {
    const { Item } = await this.db.send(
      new GetCommand({ TableName: this.tableName, Key: keys.host(hostId), ConsistentRead: true }),
    );
    if (!Item) throw new HostNotFoundError(hostId);
    return hostOf(Item);
  }

  async patchHost(hostId: string, patch: HostPatch): Promise<Host> {
    const sets = Object.entries(patch).filter(([, value]) => value !== undefined);
    try {
      const { Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.host(hostId),
          UpdateExpression: `SET ${sets.map((_, i) => `#f${i} = :v${i}`).join(', ')}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: Object.fromEntries(sets.map(([name], i) => [`#f${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(sets.map(([, value], i) => [`:v${i}`, value])),
          ReturnValues: 'ALL_NEW',
        }),
      );
      return hostOf(Attributes ?? {});
    } catch (error) {
      if (isConditionFailure(error)) throw new HostNotFoundError(hostId);
      throw error;
    }
  }

  /** Removes a host the platform placed no running server on (drain it and let its rooms end first). */
  async deleteHost(hostId: string): Promise<void> {
    try {
      await this.db.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: keys.host(hostId),
          ConditionExpression: 'attribute_exists(pk) AND #placed = :zero',
          ExpressionAttributeNames: { '#placed': 'placed' },
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const host = await this.getHost(hostId);
      throw new FleetConflictError(
        `Host '${hostId}' still runs ${host.placed} game server(s); drain it (PATCH {"draining": true}) and remove it once its rooms ended.`,
        { details: { placed: host.placed } },
      );
    }
  }

  async heartbeat(hostId: string, beat: HostHeartbeat, now: Date): Promise<void> {
    try {
      await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: keys.host(hostId),
          UpdateExpression: 'SET #heartbeat = :beat',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: { '#heartbeat': 'heartbeat' },
          ExpressionAttributeValues: {
            ':beat': { cpu: beat.cpu, memory: beat.memory, servers: beat.servers, at: now.toISOString() },
          },
        }),
      );
    } catch (error) {
      if (isConditionFailure(error)) throw new HostNotFoundError(hostId);
      throw error;
    }
  }

  /** Replaces the fleet with the local cloud's file: its regions and hosts, keeping heartbeats. */
  async install(regions: readonly Region[], hosts: readonly HostBody[], now: Date): Promise<void> {
    for (const region of regions) await this.putRegion(region);
    for (const body of hosts) {
      try {
        await this.addHost(body, now);
      } catch (error) {
        if (!(error instanceof FleetConflictError)) throw error;
        await this.patchHost(body.hostId, { maxServers: body.maxServers, limits: body.limits, draining: false });
      }
    }
  }
}

/**
 * The host part of a placement's transaction: one more server on the host, on condition that
 * it is still healthy as placement judged it (not draining, heard from since `now` minus its
 * timeout, under its server count and its CPU and memory limits). Parallel placements
 * serialize on the item: a host of capacity K gets K servers, however many ask at once.
 */
export function hostClaim(tableName: string, host: Host, now: Date) {
  return {
    Update: {
      TableName: tableName,
      Key: keys.host(host.hostId),
      UpdateExpression: 'ADD #placed :one',
      ConditionExpression:
        'attribute_exists(pk) AND #draining = :false AND #placed < #max AND #hb.#at >= :fresh ' +
        'AND #hb.#cpu <= #limits.#cpu AND #hb.#memory <= #limits.#memory',
      ExpressionAttributeNames: {
        '#placed': 'placed',
        '#draining': 'draining',
        '#max': 'maxServers',
        '#hb': 'heartbeat',
        '#at': 'at',
        '#cpu': 'cpu',
        '#memory': 'memory',
        '#limits': 'limits',
      },
      ExpressionAttributeValues: { ':one': 1, ':false': false, ':fresh': freshSince(host, now) },
    },
  };
}

/** The host part of a release: one server fewer (never below zero). */
export function hostRelease(tableName: string, hostId: string) {
  return {
    Update: {
      TableName: tableName,
      Key: keys.host(hostId),
      UpdateExpression: 'ADD #placed :minus',
      ConditionExpression: 'attribute_exists(pk) AND #placed > :zero',
      ExpressionAttributeNames: { '#placed': 'placed' },
      ExpressionAttributeValues: { ':minus': -1, ':zero': 0 },
    },
  };
}

/** The one entry of kind `fleet`: every region, as `recentRegions` answers. */
const regionsKey = 'regions';

function regionOf(item: Record<string, unknown>): Region {
  const location = item.location as Region['location'];
  return { name: String(item.name), default: item.default === true, ...(location ? { location } : {}) };
}

function hostOf(item: Record<string, unknown>): Host {
  const { pk: _pk, sk: _sk, type: _type, ...host } = item;
  return host as unknown as Host;
}
