import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../../../core/infra/aws-clients';
import { bucketOf } from '../../../core/matchmaking/bucket';
import type { Room } from '../../../core/rooms/model';
import { roomItem } from '../../../core/rooms/room-item';
import { benchGame, type BenchPlatform } from '../bench-platform';
import { forEachLimited, phase } from '../progress';
import {
  describeErrors,
  describeLatency,
  describeTarget,
  formatRatio,
  meets,
  perSecond,
  ratio,
  summarize,
  verdict,
  type LatencySummary,
  type Target,
} from '../stats';
import type { ScenarioSummary } from '../summary';

export const discoveryTarget: Target = { kind: 'atMost', value: 1.2 };

export interface DiscoverySize {
  readonly rooms: number;
  /** Rooms in the listed game version's own partition (a tenth of the table). */
  readonly listedPartition: number;
  readonly list: LatencySummary;
  readonly findOrCreate: LatencySummary;
  readonly errors: number;
  readonly errorStatuses: Record<string, number>;
}

export interface DiscoveryResult {
  readonly scenario: 'discovery';
  readonly small: DiscoverySize;
  readonly large: DiscoverySize;
  /** Items written per second while seeding (BatchWriteItem, 25 rooms each). */
  readonly seedingPerSecond: number;
  /** p50 at the large size ÷ p50 at the small size. */
  readonly listRatio: number;
  readonly findRatio: number;
  readonly target: Target;
  readonly meetsTarget: boolean;
}

const listedVersion = '1.0.0-listed';
const findVersion = '1.0.0-find';
const otherVersions = 20;
const listPage = 10;

/**
 * A ready, empty room of one of the bench game's versions, written exactly as the room store
 * writes one (`roomItem`), so its index entries are those of a real room.
 */
export function seededRoom(index: number, version: string, region: string, now: Date): Room {
  const at = new Date(now.getTime() + index).toISOString();
  const roomId = `seed-${version}-${index.toString().padStart(7, '0')}`;
  return {
    roomId,
    gameId: benchGame.gameId,
    version,
    region,
    state: 'ready',
    settings: {},
    maxPlayers: 100,
    players: 0,
    changeNumber: 1,
    createdAt: at,
    updatedAt: at,
    owner: 'bench-seed',
    reservationTimeoutS: 30,
    spawnDeadline: at,
    placement: { taskId: `seed-${index}`, host: '127.0.0.1', ports: [7777] },
    address: '127.0.0.1',
    bucket: bucketOf({ gameId: benchGame.gameId, version, region, criteria: {} }),
    readyAt: at,
    lastHeartbeatAt: at,
  };
}

/** Which version the i-th seeded room belongs to: every tenth is in the listed partition. */
export function seededVersion(index: number): string {
  return index % 10 === 0 ? listedVersion : `1.0.0-other-${index % otherVersions}`;
}

/** `samples` fresh players each list the listed version's rooms, then find-or-create in their own. */
async function measureDiscovery(platform: BenchPlatform, rooms: number, samples: number): Promise<DiscoverySize> {
  const tokens = await platform.tokens(`discovery${rooms}`, samples);
  const lists: number[] = [];
  const finds: number[] = [];
  const errorStatuses: Record<string, number> = {};
  let errors = 0;
  const record = (status: number, code: string | undefined) => {
    errors++;
    const key = `${status} ${code ?? ''}`.trim();
    errorStatuses[key] = (errorStatuses[key] ?? 0) + 1;
  };
  await phase(`discovery: ${rooms} rooms, list and find-or-create`, samples, async (progress) => {
    for (const [i, token] of tokens.entries()) {
      const listStarted = performance.now();
      const listed = await platform.call(
        'GET',
        `/v1/rooms?gameId=${benchGame.gameId}&version=${listedVersion}&limit=${listPage}`,
        { token },
      );
      const listMs = performance.now() - listStarted;
      if (listed.status === 200 && listed.body.rooms.length === listPage) lists.push(listMs);
      else record(listed.status, listed.body?.error?.code ?? `${listed.body?.rooms?.length} rooms listed`);
      const findStarted = performance.now();
      const found = await platform.call('POST', '/v1/matchmaking/join', {
        token,
        body: { gameId: benchGame.gameId, version: findVersion },
      });
      const findMs = performance.now() - findStarted;
      // The calls that created a room waited for its server: not discovery, left out.
      if (found.status === 200) finds.push(findMs);
      else if (found.status !== 201 && found.status !== 202) record(found.status, found.body?.error?.code);
      if (i % 2 === 1) progress.add(2);
    }
  });
  await platform.releaseRooms();
  return {
    rooms,
    listedPartition: Math.ceil(rooms / 10),
    list: summarize(lists),
    findOrCreate: summarize(finds),
    errors,
    errorStatuses,
  };
}

/**
 * Find-or-create and list latency with `small` rooms in the table, then with `large`:
 * the table grows, and so does the listed version's own partition (a tenth of all rooms),
 * while the answers stay the same size. Find-or-create plays its own version, whose rooms
 * it makes itself; the rooms around it are there to be not read.
 */
export async function benchDiscovery(
  platform: BenchPlatform,
  options: { small: number; large: number; samples: number },
): Promise<DiscoveryResult> {
  const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: platform.cloud.dynamodb.endpoint });
  const region = platform.cloud.config.region;
  await platform.configureVersion(findVersion, 100);
  const now = new Date();
  let seeded = 0;
  let seedingMs = 0;
  const seedUpTo = async (count: number) => {
    const indexes = Array.from({ length: count - seeded }, (_, i) => seeded + i);
    const batches: number[][] = [];
    for (let i = 0; i < indexes.length; i += 25) batches.push(indexes.slice(i, i + 25));
    const started = performance.now();
    await phase(`discovery: seed rooms up to ${count}`, indexes.length, (progress) =>
      forEachLimited(batches, 8, async (batch) => {
        let requests = batch.map((i) => ({
          PutRequest: { Item: roomItem(seededRoom(i, seededVersion(i), region, now), {}) },
        }));
        while (requests.length > 0) {
          const { UnprocessedItems } = await db.send(
            new BatchWriteCommand({ RequestItems: { [platform.cloud.tableName]: requests } }),
          );
          requests = (UnprocessedItems?.[platform.cloud.tableName] ?? []) as typeof requests;
        }
        progress.add(batch.length);
      }),
    );
    seedingMs += performance.now() - started;
    seeded = count;
  };

  try {
    await seedUpTo(options.small);
    const small = await measureDiscovery(platform, options.small, options.samples);
    await seedUpTo(options.large);
    const large = await measureDiscovery(platform, options.large, options.samples);
    const listRatio = ratio(large.list.p50, small.list.p50);
    const findRatio = ratio(large.findOrCreate.p50, small.findOrCreate.p50);
    return {
      scenario: 'discovery',
      small,
      large,
      seedingPerSecond: perSecond(seeded, seedingMs),
      listRatio,
      findRatio,
      target: discoveryTarget,
      meetsTarget: meets(listRatio, discoveryTarget) && meets(findRatio, discoveryTarget),
    };
  } finally {
    db.destroy();
  }
}

export function summarizeDiscovery(result: DiscoveryResult): ScenarioSummary {
  const { small, large } = result;
  const sizeLine = (s: DiscoverySize) =>
    `  ${String(s.rooms).padStart(7)} rooms (${s.listedPartition} listed): list ${describeLatency(s.list)} | find-or-create ${describeLatency(s.findOrCreate)}   errors ${describeErrors(s.errors, s.errorStatuses)}`;
  return {
    id: 'discovery',
    title: `Scale of discovery: ${small.rooms} vs ${large.rooms} rooms`,
    lines: [
      `scale of discovery: ${small.list.n + small.findOrCreate.n} and ${large.list.n + large.findOrCreate.n} sequential calls with ${small.rooms} vs ${large.rooms} rooms in the table (seeded at ${result.seedingPerSecond.toFixed(0)} rooms/s)`,
      sizeLine(small),
      sizeLine(large),
      `  RATIO list p50 large / small   ${formatRatio(result.listRatio)}   target ${describeTarget(result.target)}   ${verdict(meets(result.listRatio, result.target))}`,
      `  RATIO find p50 large / small   ${formatRatio(result.findRatio)}   target ${describeTarget(result.target)}   ${verdict(meets(result.findRatio, result.target))}`,
    ],
    rows: [
      {
        scenario: `list rooms, ${large.rooms} vs ${small.rooms} rooms`,
        figure: `p50 ${large.list.p50.toFixed(2)} ms`,
        baseline: `p50 ${small.list.p50.toFixed(2)} ms with ${small.rooms} rooms`,
        ratio: result.listRatio,
        target: result.target,
        reading: 'lower is better; 1 = no growth',
      },
      {
        scenario: `find-or-create, ${large.rooms} vs ${small.rooms} rooms`,
        figure: `p50 ${large.findOrCreate.p50.toFixed(2)} ms`,
        baseline: `p50 ${small.findOrCreate.p50.toFixed(2)} ms with ${small.rooms} rooms`,
        ratio: result.findRatio,
        target: result.target,
        reading: 'lower is better; 1 = no growth',
      },
    ],
    charts: [
      {
        id: 'discovery',
        title: `Discovery latency with ${small.rooms} vs ${large.rooms} rooms in the table`,
        unit: 'ms',
        bars: [
          { label: `list, ${small.rooms} rooms, p50`, value: small.list.p50, series: 'baseline' },
          { label: `list, ${large.rooms} rooms, p50`, value: large.list.p50, series: 'roomkeeper' },
          { label: `find-or-create, ${small.rooms} rooms, p50`, value: small.findOrCreate.p50, series: 'baseline' },
          { label: `find-or-create, ${large.rooms} rooms, p50`, value: large.findOrCreate.p50, series: 'roomkeeper' },
        ],
      },
    ],
  };
}
