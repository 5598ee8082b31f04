import { GetCommand, PutCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { banTtl, type Ban } from '../../../core/abuse/bans';
import { AccountBannedError } from '../../../core/abuse/errors';
import type { GameServerConfiguration } from '../../../core/gameservers/configuration';
import { keys } from '../../../core/infra/keys';
import { PlatformCache } from '../../../core/infra/platform-cache';
import type { PoolKey } from '../../../core/pool/pool-store';
import { WarmPool } from '../../../core/pool/warm-pool';
import { roomItem } from '../../../core/rooms/room-item';
import {
  upgradeTable,
  type TableUpgradeDependencies,
  type TableUpgradeOptions,
} from '../../../core/upgrade/table-upgrade';
import { UpgradeStore } from '../../../core/upgrade/upgrade-store';
import { platform } from '../../../lambdas/dependencies';
import { aHandOver, aStandbyRoom } from '../../helpers/factories';
import { aConfiguration } from '../../helpers/contracts/game-configurations';
import type { ItemKey } from '../../../core/infra/keys';
import { templateBodySchema } from '../../../core/templates/template-schema';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

/**
 * The release's one-time pass (core/upgrade/table-upgrade.ts) on DynamoDB Local: items written
 * as the previous release wrote them (a ban record without its mirrors on the account's gates,
 * a standby room not listed in the standby index) work as this release's once it ran. Each
 * test runs its own pass (its own marker) over the file's one table.
 */
let test: TestPlatform;

beforeAll(async () => {
  test = await startTestPlatform();
});
afterAll(() => test.close());

const anAccount = () => `player-${randomUUID().slice(0, 8)}`;
const inOneHour = () => new Date(Date.now() + 3_600_000).toISOString();

/** A ban record as the previous release's `BanStore.put` wrote it: the record alone. */
async function oldBan(overrides: Partial<Ban> = {}): Promise<Ban> {
  const ban: Ban = { account: anAccount(), createdAt: new Date().toISOString(), createdBy: 'ops', ...overrides };
  const ttl = banTtl(ban);
  await test.db.send(
    new PutCommand({
      TableName: test.tableName,
      Item: { ...keys.ban(ban.account), type: 'ban', ...ban, ...(ttl === undefined ? {} : { ttl }) },
    }),
  );
  return ban;
}

/** A ready standby server as the previous release started it: its room without the standby index keys. */
async function oldStandbyServer(key: PoolKey): Promise<string> {
  const room = aStandbyRoom(key);
  const { gsi1pk: _pk, gsi1sk: _sk, ...item } = roomItem(room, {});
  await test.db.send(new PutCommand({ TableName: test.tableName, Item: item }));
  await platform().pool.addStarting(key, room.roomId, new Date());
  await platform().pool.markReady(key, room.roomId);
  return room.roomId;
}

/** A warm create's take, in a process of its own; every game accepts its room. */
function warmCreate(key: PoolKey, account: string) {
  const p = platform();
  const warm = new WarmPool({
    pool: p.pool,
    rooms: p.rooms,
    placement: p.placement,
    spawner: p.spawner,
    costs: p.costs,
    now: p.now,
    newRoomId: p.newId,
    mintServerToken: () => Promise.resolve('token'),
    cache: new PlatformCache(),
    assign: () => Promise.resolve({ accepted: true }),
  });
  const configuration = { gameId: key.gameId, version: key.version } as GameServerConfiguration;
  return warm.takeStandby(configuration, key.region, aHandOver(account));
}

const timedOut = () => new Error('the run timed out');

/** An item as the release before the catalog index wrote it: without its gsi3 entry. */
async function withoutCatalogEntry(key: ItemKey): Promise<void> {
  await test.db.send(
    new UpdateCommand({ TableName: test.tableName, Key: key, UpdateExpression: 'REMOVE gsi3pk, gsi3sk' }),
  );
}

/** Every configuration of `gameId` and template named `name` the catalog listings show. */
async function catalogued(gameId: string, name: string): Promise<string[]> {
  const p = platform();
  const [configurations, templates] = [
    await p.gameConfigurations.list(undefined, 100),
    await p.templates.list(undefined, 100),
  ];
  return [
    ...configurations.items.filter((c) => c.gameId === gameId).map((c) => `${c.gameId}/${c.version}`),
    ...templates.items.filter((t) => t.name === name).map((t) => t.name),
  ];
}

/** The pass as the sweeper runs it, with a marker of its own (`store` may be a recording one). */
function pass(
  store: UpgradeStore = new UpgradeStore(test.db, test.tableName, `test-${randomUUID()}`),
  ports: Partial<Pick<TableUpgradeDependencies, 'bans' | 'rooms'>> = {},
) {
  const p = platform();
  const deps: TableUpgradeDependencies = {
    store,
    bans: p.abuse,
    rooms: p.rooms,
    configurations: p.gameConfigurations,
    templates: p.templates,
    now: p.now,
    ...ports,
  };
  return {
    store,
    run: (options: Partial<TableUpgradeOptions> = {}) =>
      upgradeTable(deps, { maxPages: Number.POSITIVE_INFINITY, ...options }),
  };
}

/** How a join and a create of `account` are decided: the gate's one write, as their handlers call it. */
async function admission(account: string): Promise<unknown[]> {
  const now = new Date();
  const guard = platform().abuse;
  return Promise.all(
    (['join', 'create'] as const).map((action) =>
      guard
        .checks(action, account, now)
        .decide()
        .then(
          () => 'admitted',
          (error: unknown) => (error instanceof AccountBannedError ? error.status : error),
        ),
    ),
  );
}

async function tableItems(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await test.db.send(
      new ScanCommand({
        TableName: test.tableName,
        ConsistentRead: true,
        ...(start ? { ExclusiveStartKey: start } : {}),
      }),
    );
    items.push(...(page.Items ?? []).filter((item) => item.pk !== 'UPGRADE'));
    start = page.LastEvaluatedKey;
  } while (start);
  return items.sort((a, b) => `${a.pk}|${a.sk}`.localeCompare(`${b.pk}|${b.sk}`));
}

const aPool = (): PoolKey => ({ gameId: `old-${randomUUID().slice(0, 8)}`, version: '1', region: 'eu-west-1' });

describe('the upgrade of the previous release’s items', () => {
  it('makes old bans refuse joins and creates (403) and gives old standby servers to warm creates', async () => {
    const [permanent, timed] = [await oldBan({ reason: 'spam' }), await oldBan({ expiresAt: inOneHour() })];
    const ended = await oldBan({ expiresAt: new Date(Date.now() - 60_000).toISOString() });
    const key = aPool();
    const server = await oldStandbyServer(key);

    const marker = await pass().run();

    expect(marker).toMatchObject({ state: 'done', finishedAt: expect.any(String) });
    expect(await admission(permanent.account)).toEqual([403, 403]);
    expect(await admission(timed.account)).toEqual([403, 403]);
    // An ended ban is deleted, its account admitted.
    const { Item } = await test.db.send(
      new GetCommand({ TableName: test.tableName, Key: keys.ban(ended.account), ConsistentRead: true }),
    );
    expect(Item).toBeUndefined();
    expect(await admission(ended.account)).toEqual(['admitted', 'admitted']);
    // The old bans read back as placed.
    expect(await platform().abuse.getBan(permanent.account, new Date())).toEqual(permanent);
    const taken = await warmCreate(key, 'creator');
    expect(taken?.room).toMatchObject({ roomId: server, owner: 'creator', settings: { map: 'creator' } });
  });

  it('changes nothing when it runs again, from its marker or from scratch', async () => {
    const ban = await oldBan({ expiresAt: inOneHour() });
    await oldStandbyServer(aPool());
    const first = pass();
    await first.run();
    expect(await admission(ban.account)).toEqual([403, 403]);
    const upgraded = await tableItems();

    expect(await first.run()).toMatchObject({ state: 'done' });
    await pass().run();

    expect(await tableItems()).toEqual(upgraded);
  });

  it('leaves a ban lifted or replaced after the pass read it as the admin left it', async () => {
    const [lifted, replaced] = [await oldBan(), await oldBan()];
    const guard = platform().abuse;
    await guard.liftBan(lifted.account, 'ops', new Date());
    const replacement = await guard.ban({ account: replaced.account, expiresAt: inOneHour() }, 'ops', new Date());

    expect(await guard.restoreBan(lifted, new Date())).toBe('changed');
    expect(await guard.restoreBan(replaced, new Date())).toBe('changed');

    expect(await admission(lifted.account)).toEqual(['admitted', 'admitted']);
    expect(await guard.getBan(replaced.account, new Date())).toEqual(replacement);
  });

  it('resumes where a run bounded by its pages, or cut short, stopped', async () => {
    const bans = [await oldBan(), await oldBan(), await oldBan()];
    const key = aPool();
    const server = await oldStandbyServer(key);
    const cursors: unknown[] = [];
    const store = new (class extends UpgradeStore {
      override page(cursor: Parameters<UpgradeStore['page']>[0], limit?: number) {
        cursors.push(cursor);
        return super.page(cursor, limit);
      }
    })(test.db, test.tableName, `test-${randomUUID()}`);
    let cutShort = false;
    const p = platform();
    const { run } = pass(store, {
      bans: { restoreBan: (ban, now) => (cutShort ? Promise.reject(timedOut()) : p.abuse.restoreBan(ban, now)) },
      rooms: { listStandby: (room, now) => (cutShort ? Promise.reject(timedOut()) : p.rooms.listStandby(room, now)) },
    });
    const runFrom = async (options: Partial<TableUpgradeOptions> = {}) => {
      cursors.length = 0;
      return run({ pageLimit: 1, ...options }).catch((error: Error) => error.message);
    };

    // Two pages of one item each (a run past its time reads no next page): four old items
    // cannot all lie within them.
    expect(await runFrom({ timeBudgetMs: 0 })).toMatchObject({ state: 'running', pages: 1 });
    const bounded = await runFrom({ maxPages: 1 });
    expect(bounded).toMatchObject({ state: 'running', pages: 2, cursor: expect.any(Object) });
    // A run that dies at an old item saves nothing of its page: the next one reads it again.
    cutShort = true;
    expect(await runFrom()).toBe('the run timed out');
    expect(cursors[0]).toEqual(typeof bounded === 'string' ? undefined : bounded.cursor);
    const stored = await store.marker();
    expect(stored).toMatchObject({ state: 'running', cursor: expect.any(Object) });
    cutShort = false;
    const finished = await runFrom();

    expect(cursors[0]).toEqual(stored?.cursor);
    expect(finished).toMatchObject({ state: 'done' });
    for (const ban of bans) expect(await admission(ban.account)).toEqual([403, 403]);
    expect((await warmCreate(key, 'creator'))?.room.roomId).toBe(server);
  });

  it('lists configurations and templates stored before the catalog index, and never writes back a deleted one', async () => {
    const p = platform();
    const configuration = aConfiguration();
    const name = `old-${randomUUID().slice(0, 8)}`;
    await p.gameConfigurations.put(configuration);
    const constants = templateBodySchema.parse({ constants: { maxMembers: 4, visibility: 'open' } }).constants;
    await p.templates.put({ name, hosting: 'peerHosted', constants, updatedAt: new Date().toISOString() });
    await withoutCatalogEntry(keys.gameConfiguration(configuration.gameId, configuration.version));
    await withoutCatalogEntry(keys.sessionTemplate(name));
    expect(await catalogued(configuration.gameId, name)).toEqual([]);

    const marker = await pass().run();

    expect(marker).toMatchObject({ state: 'done', catalogIndexed: 2 });
    expect(await catalogued(configuration.gameId, name)).toEqual([`${configuration.gameId}/1`, name]);
    // A configuration deleted after a pass read it stays deleted.
    await p.gameConfigurations.delete(configuration.gameId, configuration.version);
    expect(await p.gameConfigurations.addToCatalog(configuration.gameId, configuration.version)).toBe(false);
    await expect(p.gameConfigurations.get(configuration.gameId, configuration.version)).rejects.toMatchObject({
      status: 404,
    });
  });
});
