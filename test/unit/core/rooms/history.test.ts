import { historyEventOf, mergeHistoryReads, type HistoryEvent } from '../../../../core/rooms/history';
import { historyContract } from '../../../helpers/contracts/history';
import { InMemoryHistory } from '../../../helpers/fakes/history';

describe('InMemoryHistory', () => {
  historyContract(() => new InMemoryHistory());
});

const created = '2026-03-02T10:00:00.000Z';
const later = '2026-03-02T10:00:05.000Z';

/** A room item as a write leaves it in the stream's new image. */
function image(fields: Record<string, unknown>, changed: Record<string, number>): Record<string, unknown> {
  return {
    pk: 'ROOM#r1',
    sk: 'ROOM',
    roomId: 'r1',
    gameId: 'arena',
    version: '1.0.0',
    region: 'local',
    createdAt: created,
    updatedAt: later,
    state: 'ready',
    ...fields,
    cn: changed,
  };
}

describe('historyEventOf: what one room write adds to the history', () => {
  const all = (n: number) => ({ members: n, properties: n, host: n, state: n, servers: n });

  it.each([
    ['a new room', image({ state: 'spawning', changeNumber: 1, updatedAt: created }, all(1)), 'spawning'],
    [
      'its placement',
      image(
        { state: 'spawning', changeNumber: 2, placement: { taskId: 't', host: '10.0.0.5', ports: [7000] } },
        { ...all(1), servers: 2 },
      ),
      'placed',
    ],
    [
      'inited',
      image({ state: 'ready', changeNumber: 3, readyAt: later }, { ...all(1), state: 3, servers: 3 }),
      'ready',
    ],
    [
      'a warm-pool hand-over',
      image({ changeNumber: 4, readyAt: later }, { ...all(1), members: 4, servers: 4 }),
      'assigned',
    ],
    [
      'a replacement server',
      image({ state: 'spawning', changeNumber: 9 }, { ...all(1), state: 9, servers: 9 }),
      'server-replaced',
    ],
    [
      'a failure',
      image({ state: 'failed', failureReason: 'hung', changeNumber: 5 }, { ...all(1), state: 5 }),
      'failed',
    ],
  ])('%s', (_name, item, kind) => {
    expect(historyEventOf(item)?.event).toBe(kind);
  });

  it('says why a room failed or closed, and where its server ran', () => {
    const item = image(
      {
        state: 'closed',
        failureReason: 'closed-by-admin',
        changeNumber: 6,
        placement: { taskId: 't', host: 'h', ports: [] },
      },
      { ...all(1), state: 6 },
    );
    expect(historyEventOf(item)).toEqual<HistoryEvent>({
      at: later,
      roomId: 'r1',
      gameId: 'arena',
      version: '1.0.0',
      region: 'local',
      changeNumber: 6,
      event: 'closed',
      reason: 'closed-by-admin',
      host: 'h',
    });
  });

  it('adds nothing for writes that change neither state nor server: joins, properties, saved state', () => {
    expect(historyEventOf(image({ changeNumber: 7 }, { ...all(1), members: 7 }))).toBeUndefined();
    expect(historyEventOf(image({ changeNumber: 7, readyAt: created }, { ...all(1), servers: 7 }))).toBeUndefined();
    expect(historyEventOf(image({ changeNumber: 7 }, {}))).toBeUndefined();
  });
});

describe('mergeHistoryReads', () => {
  const ev = (at: string): HistoryEvent => ({
    at,
    roomId: 'r',
    gameId: 'g',
    version: 'v',
    region: 'x',
    changeNumber: 1,
    event: 'ready',
  });
  const entry = (sk: string) => ({ sk, event: ev(sk) });

  it('never puts an event on a page while a partition that stopped early may hold a newer one', () => {
    // Partition a stopped at 05 with more to read; b's 03 may not go before a's unread 04.
    const page = mergeHistoryReads(
      [
        { cursor: { partition: 'a' }, events: [entry('09'), entry('05')], last: '05' },
        { cursor: { partition: 'b' }, events: [entry('07'), entry('03')] },
      ],
      10,
    );
    expect(page.events.map((e) => e.at)).toEqual(['09', '07', '05']);
    expect(page.cursors).toEqual([
      { partition: 'a', after: '05' },
      { partition: 'b', after: '07' },
    ]);
  });
});
