import type { AbuseGuard } from '../abuse/guard';
import type { GameConfigurations } from '../gameservers/configuration-store';
import type { TemplateStore } from '../templates/template-store';
import { childLogger } from '../infra/logger';
import { countMetric } from '../infra/metrics';
import type { RoomStore } from '../rooms/room-store';
import type { OldShapeItem, UpgradeMarker, UpgradeStore } from './upgrade-store';

/**
 * The one-time pass of this release, by the name its marker item is kept under. A release
 * that changes a stored shape again gives its own pass a new name, so it runs once as well.
 */
export const tableUpgradeName = 'gate-bans-standby-and-catalog-index';

/** The metric counted once, when the pass has read the whole table. */
const tableUpgradeFinishedMetric = 'TableUpgradeFinished';

export interface TableUpgradeDependencies {
  readonly store: UpgradeStore;
  readonly bans: Pick<AbuseGuard, 'restoreBan'>;
  readonly rooms: Pick<RoomStore, 'listStandby'>;
  /** The catalogs' own stores give their older items an index entry. */
  readonly configurations: Pick<GameConfigurations, 'addToCatalog'>;
  readonly templates: Pick<TemplateStore, 'addToCatalog'>;
  readonly now: () => Date;
}

export interface TableUpgradeOptions {
  /** Scan pages one run reads at most (each up to 1 MB); the next run resumes where it stopped. */
  readonly maxPages: number;
  /** Items a page evaluates at most (DynamoDB's `Limit`); by default a page is 1 MB. */
  readonly pageLimit?: number;
  /** No page is started once this long has passed since the run began (a scheduled run's own time limit). */
  readonly timeBudgetMs?: number;
}

const log = childLogger('table-upgrade');

/**
 * Brings items of the previous release's shapes to this release's, a bounded number of Scan
 * pages per run, resuming from the key its marker saved; once the whole table was read the
 * marker says `done` and a run costs one read.
 *
 * - A ban record: placed anew through the ban store, its record and its mirror on every gate
 *   in one transaction, as a placement is (an ended one is deleted), only while it is still
 *   the stored ban, so a ban lifted or replaced meanwhile stays as the admin left it. A ban
 *   that has its mirrors already gets the same ones again: cheaper than reading them first,
 *   and bans are few.
 * - A standby room without the standby index key: listed, by one conditional write of the
 *   room store, while it is still a live standby room (a taken or ended one is left alone;
 *   the pool keeper and the sweeper end it as they end any).
 * - A game configuration or session template without its catalog index entry: given it by
 *   its store, only while the item is still there without one (a deleted one stays deleted),
 *   so `GET /v1/admin/games` and `GET /v1/admin/templates` list it.
 *
 * A deployment that skipped a release gets that release's changes too: the pass covers every
 * shape changed since the table upgrades began.
 * Every write is conditional and repeats harmlessly, so a run cut short (a timeout, a crash)
 * loses nothing: the next one reads the unsaved page again. Runs that overlap write the same
 * things, and only one of them saves each page (`UpgradeStore.advance`).
 */
export async function upgradeTable(
  deps: TableUpgradeDependencies,
  options: TableUpgradeOptions,
): Promise<UpgradeMarker> {
  const stopAt = deps.now().getTime() + (options.timeBudgetMs ?? Number.POSITIVE_INFINITY);
  let marker = await deps.store.marker();
  for (let read = 0; read < options.maxPages && marker?.state !== 'done'; read++) {
    if (read > 0 && deps.now().getTime() >= stopAt) break;
    const page = await deps.store.page(marker?.cursor, options.pageLimit);
    const counts = await migrate(deps, page.items);
    const next = advanced(marker, counts, page.next, deps.now());
    if (!(await deps.store.advance(marker, next))) return (await deps.store.marker()) ?? next;
    marker = next;
    if (marker.state === 'done') announceFinished(marker, deps.now());
  }
  if (marker === undefined) throw new Error('no Scan page was read: maxPages must be at least 1');
  return marker;
}

type Counts = Pick<UpgradeMarker, 'bansMirrored' | 'bansDeleted' | 'standbyListed' | 'catalogIndexed'>;

async function migrate(deps: TableUpgradeDependencies, items: readonly OldShapeItem[]): Promise<Counts> {
  const counts = { bansMirrored: 0, bansDeleted: 0, standbyListed: 0, catalogIndexed: 0 };
  for (const item of items) {
    if (item.kind === 'ban') {
      const restored = await deps.bans.restoreBan(item.ban, deps.now());
      if (restored === 'mirrored') counts.bansMirrored++;
      if (restored === 'deleted') counts.bansDeleted++;
    } else if (item.kind === 'standbyRoom') {
      if (await deps.rooms.listStandby(item.room, deps.now())) counts.standbyListed++;
    } else if (item.kind === 'gameConfiguration') {
      if (await deps.configurations.addToCatalog(item.gameId, item.version)) counts.catalogIndexed++;
    } else if (await deps.templates.addToCatalog(item.name)) {
      counts.catalogIndexed++;
    }
  }
  return counts;
}

/** The marker after one more page: its counts added, and `done` when the page was the table's last. */
function advanced(
  marker: UpgradeMarker | undefined,
  counts: Counts,
  cursor: UpgradeMarker['cursor'],
  now: Date,
): UpgradeMarker {
  return {
    state: cursor ? 'running' : 'done',
    ...(cursor ? { cursor } : {}),
    pages: (marker?.pages ?? 0) + 1,
    bansMirrored: (marker?.bansMirrored ?? 0) + counts.bansMirrored,
    bansDeleted: (marker?.bansDeleted ?? 0) + counts.bansDeleted,
    standbyListed: (marker?.standbyListed ?? 0) + counts.standbyListed,
    catalogIndexed: (marker?.catalogIndexed ?? 0) + counts.catalogIndexed,
    startedAt: marker?.startedAt ?? now.toISOString(),
    ...(cursor ? {} : { finishedAt: now.toISOString() }),
  };
}

/** What an operator watches for (docs/operations.md, "Upgrading"): one log line and one metric, once. */
function announceFinished(marker: UpgradeMarker, now: Date): void {
  const { cursor: _cursor, state: _state, ...summary } = marker;
  log.info('table upgrade finished', { migration: tableUpgradeName, ...summary });
  countMetric(tableUpgradeFinishedMetric, now);
}
