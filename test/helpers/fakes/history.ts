import { keys } from '../../../core/infra/keys';
import {
  readHistoryPage,
  type HistoryCursor,
  type HistoryEvent,
  type HistoryPage,
  type HistoryQuery,
  type PartitionRead,
} from '../../../core/rooms/history';
import type { RoomHistory } from '../../../core/rooms/history-store';

/**
 * `RoomHistory` in memory, for unit tests. Like the table: one item per key (a second record
 * of an event replaces it), a partition read examines at most `limit` items newest first and
 * filters after examining them, and says where it stopped whenever it examined `limit`.
 */
export class InMemoryHistory implements RoomHistory {
  private readonly items = new Map<string, { pk: string; sk: string; event: HistoryEvent }>();

  async record(events: readonly HistoryEvent[]): Promise<void> {
    for (const event of events) {
      const key = keys.historyEvent(event.at, event.roomId, event.changeNumber);
      this.items.set(`${key.pk}|${key.sk}`, { ...key, event: structuredClone(event) });
    }
  }

  list(query: HistoryQuery, now: Date): Promise<HistoryPage> {
    return readHistoryPage(query, now, async (cursor, limit, roomId) => this.read(cursor, limit, roomId));
  }

  private read(cursor: HistoryCursor, limit: number, roomId?: string): PartitionRead {
    const examined = [...this.items.values()]
      .filter((item) => item.pk === cursor.partition && (cursor.after === undefined || item.sk < cursor.after))
      .sort((a, b) => (a.sk < b.sk ? 1 : -1))
      .slice(0, limit);
    const events = examined
      .filter((item) => roomId === undefined || item.event.roomId === roomId)
      .map((item) => ({ sk: item.sk, event: structuredClone(item.event) }));
    const last = examined.length === limit ? examined.at(-1)?.sk : undefined;
    return { cursor, events, ...(last === undefined ? {} : { last }) };
  }
}
