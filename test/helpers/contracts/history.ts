import { randomUUID } from 'node:crypto';
import { RequestInvalidError } from '../../../core/errors';
import type { HistoryEvent, HistoryQuery } from '../../../core/rooms/history';
import type { RoomHistory } from '../../../core/rooms/history-store';

const now = new Date('2026-03-02T12:00:00.000Z');
const ago = (ms: number) => new Date(now.getTime() - ms).toISOString();

function anEvent(
  roomId: string,
  at: string,
  changeNumber: number,
  event: HistoryEvent['event'] = 'ready',
): HistoryEvent {
  return { at, roomId, gameId: 'arena', version: '1.0.0', region: 'local', changeNumber, event };
}

/** Every page of a listing, following its tokens. */
async function allPages(history: RoomHistory, query: Omit<HistoryQuery, 'nextToken'>): Promise<HistoryEvent[][]> {
  const pages: HistoryEvent[][] = [];
  let nextToken: string | undefined;
  do {
    const page = await history.list({ ...query, ...(nextToken ? { nextToken } : {}) }, now);
    pages.push(page.events);
    nextToken = page.nextToken;
    expect(pages.length).toBeLessThan(200);
  } while (nextToken);
  return pages;
}

/**
 * The rules every `RoomHistory` keeps, for the fake (unit) and the store (integration). Each
 * test uses rooms of its own; `subject` may share one table across tests, so each reads its
 * own rooms' events out of whatever the listing holds.
 */
export function historyContract(subject: () => RoomHistory): void {
  it('lists today’s and yesterday’s events newest first, every one once across pages, and nothing older', async () => {
    const history = subject();
    const rooms = Array.from({ length: 12 }, () => `h-${randomUUID().slice(0, 12)}`);
    const events = rooms.flatMap((roomId, i) => [
      anEvent(roomId, ago(i * 3_600_000 + 1_000), 1, 'spawning'),
      anEvent(roomId, ago(i * 3_600_000), 2, 'ready'),
    ]);
    const tooOld = anEvent(rooms[0]!, ago(3 * 86_400_000), 7, 'closed');
    await history.record([...events, tooOld]);
    const pages = await allPages(history, { limit: 5 });
    for (const page of pages) expect(page.length).toBeLessThanOrEqual(5);
    const mine = pages.flat().filter((e) => rooms.includes(e.roomId));
    const newestFirst = [...events].sort((a, b) => (a.at < b.at ? 1 : -1));
    expect(mine).toEqual(newestFirst);
    const all = pages.flat().map((e) => e.at);
    expect(all).toEqual([...all].sort().reverse());
  });

  it('lists one room’s events only, paged, when asked for a room', async () => {
    const history = subject();
    const [room, other] = [`h-${randomUUID().slice(0, 12)}`, `h-${randomUUID().slice(0, 12)}`];
    const own = [1, 2, 3, 4, 5].map((n) => anEvent(room, ago(60_000 * (10 - n)), n));
    await history.record([...own, ...[1, 2, 3].map((n) => anEvent(other, ago(60_000 * n), n))]);
    const pages = await allPages(history, { roomId: room, limit: 2 });
    expect(pages.flat()).toEqual([...own].reverse());
  });

  it('keeps an event recorded twice (a redelivered stream record) once', async () => {
    const history = subject();
    const room = `h-${randomUUID().slice(0, 12)}`;
    const event = { ...anEvent(room, ago(1_000), 3, 'failed'), reason: 'crashed' };
    await history.record([event]);
    await history.record([event]);
    await expect(history.list({ roomId: room, limit: 50 }, now)).resolves.toEqual({ events: [event] });
  });

  it('refuses a token it did not issue as a bad request naming query.nextToken', async () => {
    const history = subject();
    const forged = Buffer.from(JSON.stringify([{ p: 'ROOM#x', a: 'ROOM' }])).toString('base64url');
    for (const nextToken of [forged, 'not-base64-json', Buffer.from('[]').toString('base64url')]) {
      const refused = history.list({ limit: 5, nextToken }, now);
      await expect(refused).rejects.toBeInstanceOf(RequestInvalidError);
      await expect(refused).rejects.toMatchObject({ details: { fields: [{ field: 'query.nextToken' }] } });
    }
  });
}
