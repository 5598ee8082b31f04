import { childLogger } from '../infra/logger';
import { changeNumbersOf, changesSince, type ChangeNumbers } from '../rooms/change-kinds';
import { documentOf, isLiveMember, SessionDocumentCorruptError, type SessionDocument } from '../rooms/document';
import { isLive, type Room } from '../rooms/model';
import { roomOf } from '../rooms/room-item';
import type { ConnectionSender } from './connection-sender';
import { subscriptionEndReasons, type ServerFrame } from './messages';
import type { LiveSubscriptions, Subscription } from './subscription-store';
import { isLargeSession } from '../rooms/session-model';

/** What one record of the table's stream says of a room item. */
export type RoomRecord =
  /** The item as a write left it (the stream's NEW_IMAGE), unmarshalled. */
  | { readonly kind: 'image'; readonly roomId: string; readonly item: Record<string, unknown> }
  /** The item was deleted: an ended session (core/rooms/session-end.ts). */
  | { readonly kind: 'removed'; readonly roomId: string };

export interface FanoutDependencies {
  readonly subscriptions: LiveSubscriptions;
  readonly sender: ConnectionSender;
  readonly now: () => Date;
}

export interface FanoutOptions {
  /** Sends in flight at once (API Gateway's PostToConnection, or the local sockets). */
  readonly concurrency?: number;
  /** Rooms whose last handled change number this process remembers, for dedupe. */
  readonly maxRooms?: number;
  /** Subscriptions whose last tap this process remembers, for coalescing. */
  readonly maxSubscriptions?: number;
}

type EndReason = (typeof subscriptionEndReasons)[number];

/** What this process last told one subscription, and the tap it holds back for it. */
interface SubscriptionState {
  sent: number;
  lastTapAt: number;
  pending?: { sub: Subscription; changeNumber: number; changes: ChangeNumbers | undefined; timer: NodeJS.Timeout };
}

const log = childLogger('live-fanout');

/**
 * Turns a room's changes into taps for its subscribers (docs/live.md), one stream record at a
 * time, in the stream's order (records of one item arrive in the order of its writes):
 *
 * - dedupe: a record whose change number is not above the last one this process handled for
 *   the room is skipped (a quiet write such as a heartbeat, a batch delivered again);
 * - coalescing: a subscription gets at most one tap per its `minTapIntervalMs`; a change within
 *   the interval is held and sent when it ends, naming every kind changed since its last tap;
 * - a subscriber that is no longer a live member (nor an admin) gets `ended` `removed`, and a
 *   room that ended (closed, failed, deleted) ends every subscription with its reason;
 * - a gone connection is forgotten whole.
 *
 * Everything it keeps is per process and bounded: a cache of what it already sent, never what
 * decides anything. A new process (another Lambda instance) starts from each subscription's
 * `since`, so the worst a lost memory costs is one tap sent early, never a tap lost.
 */
export class Fanout {
  private readonly handled = new Map<string, number>();
  private readonly states = new Map<string, SubscriptionState>();
  private readonly concurrency: number;
  private readonly maxRooms: number;
  private readonly maxSubscriptions: number;
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly deps: FanoutDependencies,
    options: FanoutOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 32;
    this.maxRooms = options.maxRooms ?? 10_000;
    this.maxSubscriptions = options.maxSubscriptions ?? 100_000;
  }

  /** One record; resolves when every frame it sends now was sent (held taps go later). */
  async handle(record: RoomRecord): Promise<void> {
    if (record.kind === 'removed') {
      await this.endAll(record.roomId, 'gone');
      this.handled.delete(record.roomId);
      return;
    }
    const changeNumber = Number(record.item.changeNumber);
    if (!Number.isSafeInteger(changeNumber)) return;
    if ((this.handled.get(record.roomId) ?? -1) >= changeNumber) return;
    const room = roomOf(record.item);
    if (!isLive(room.state)) {
      await this.endAll(record.roomId, endReasonOf(room), changeNumber);
    } else {
      await this.tapAll(room, documentIfSound(record.item), changeNumber, changeNumbersOf(record.item.cn));
    }
    remember(this.handled, record.roomId, changeNumber, this.maxRooms);
  }

  /**
   * Sends the held taps within `maxWaitMs`: as their intervals end, and whatever is still held
   * then at once (early rather than never: the caller is about to be frozen or stopped).
   */
  async settle(maxWaitMs: number): Promise<void> {
    const deadline = Date.now() + Math.max(0, maxWaitMs);
    while (this.heldCount() > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, Math.min(50, deadline - Date.now())));
    }
    for (const [key, state] of this.states) if (state.pending) this.flush(key);
    await Promise.all(this.inFlight);
  }

  /** Drops every held tap without sending it (the process is stopping). */
  stop(): void {
    for (const state of this.states.values()) if (state.pending) clearTimeout(state.pending.timer);
    this.states.clear();
    this.handled.clear();
  }

  private heldCount(): number {
    let held = 0;
    for (const state of this.states.values()) if (state.pending) held++;
    return held;
  }

  private async tapAll(
    room: Room,
    doc: SessionDocument | undefined,
    changeNumber: number,
    changes: ChangeNumbers | undefined,
  ): Promise<void> {
    const subscribers = await this.deps.subscriptions.subscribersOf(room.roomId);
    const now = this.deps.now().getTime();
    await this.eachLimited(subscribers, async (sub) => {
      // A document that does not parse removes nobody: the reads that meet it report it.
      const member = doc?.members[sub.account];
      // A large session's item holds no members: its taps carry counts, and its followers are
      // judged at subscribe only (docs/sessions.md "Large sessions").
      const judged = doc !== undefined && !isLargeSession(room.constants);
      const removed = judged && !sub.admin && !(member && isLiveMember(member, room, now));
      if (removed) return this.end(sub, 'removed', changeNumber);
      return this.tap(sub, changeNumber, changes, now);
    });
  }

  private async endAll(roomId: string, reason: EndReason, changeNumber?: number): Promise<void> {
    const subscribers = await this.deps.subscriptions.subscribersOf(roomId);
    await this.eachLimited(subscribers, (sub) => this.end(sub, reason, changeNumber));
  }

  private async end(sub: Subscription, reason: EndReason, changeNumber?: number): Promise<void> {
    const key = keyOf(sub.roomId, sub.connectionId);
    const held = this.states.get(key)?.pending;
    if (held) clearTimeout(held.timer);
    this.states.delete(key);
    const frame: ServerFrame = {
      type: 'ended',
      roomId: sub.roomId,
      reason,
      ...(changeNumber === undefined ? {} : { changeNumber }),
    };
    if ((await this.send(sub, frame)) === 'sent')
      await this.deps.subscriptions.endSubscription(sub.roomId, sub.connectionId);
  }

  private async tap(sub: Subscription, changeNumber: number, changes: ChangeNumbers | undefined, now: number) {
    const key = keyOf(sub.roomId, sub.connectionId);
    const state = this.stateOf(key, sub);
    if (changeNumber <= state.sent) return;
    const waitMs = state.lastTapAt + sub.minTapIntervalMs - now;
    if (waitMs <= 0 && !state.pending) return this.sendTap(sub, state, changeNumber, changes, now);
    const timer = state.pending?.timer ?? setTimeout(() => this.flush(key), Math.max(0, waitMs));
    state.pending = { sub, changeNumber, changes, timer };
  }

  /** The subscription's state, remembered last; past the bound the oldest goes, its held tap sent first. */
  private stateOf(key: string, sub: Subscription): SubscriptionState {
    const state = this.states.get(key) ?? { sent: sub.since, lastTapAt: Number.NEGATIVE_INFINITY };
    this.states.delete(key);
    this.states.set(key, state);
    if (this.states.size > this.maxSubscriptions) {
      const oldest = this.states.keys().next().value!;
      this.flush(oldest);
      this.states.delete(oldest);
    }
    return state;
  }

  /** Sends the subscription's held tap now (its interval ended, or it cannot be held longer). */
  private flush(key: string): void {
    const state = this.states.get(key);
    if (!state?.pending) return;
    const { sub, changeNumber, changes, timer } = state.pending;
    clearTimeout(timer);
    state.pending = undefined;
    const sending = this.sendTap(sub, state, changeNumber, changes, this.deps.now().getTime());
    this.inFlight.add(sending);
    void sending.finally(() => this.inFlight.delete(sending));
  }

  private async sendTap(
    sub: Subscription,
    state: SubscriptionState,
    changeNumber: number,
    changes: ChangeNumbers | undefined,
    now: number,
  ): Promise<void> {
    const frame: ServerFrame = {
      type: 'tap',
      roomId: sub.roomId,
      changeNumber,
      changes: changesSince(changes, state.sent),
    };
    const before = { sent: state.sent, lastTapAt: state.lastTapAt };
    // Recorded before the send: a change that arrives while it is in flight is held, not sent beside it.
    state.sent = changeNumber;
    state.lastTapAt = now;
    if ((await this.send(sub, frame)) === 'failed') Object.assign(state, before);
  }

  /** One frame; a gone connection is forgotten. A failure is logged: the next change taps again. */
  private async send(sub: Subscription, frame: ServerFrame): Promise<'sent' | 'gone' | 'failed'> {
    let result: 'sent' | 'gone';
    try {
      result = await this.deps.sender.send(sub.connectionId, frame);
    } catch (error) {
      log.warn('could not send to a live socket', { roomId: sub.roomId, connectionId: sub.connectionId, error });
      return 'failed';
    }
    if (result === 'gone') await this.forget(sub.connectionId);
    return result;
  }

  private async forget(connectionId: string): Promise<void> {
    for (const [key, state] of this.states) {
      if (!key.endsWith(`\n${connectionId}`)) continue;
      if (state.pending) clearTimeout(state.pending.timer);
      this.states.delete(key);
    }
    await this.deps.subscriptions.forgetConnection(connectionId);
  }

  /** `work` for every item, at most `concurrency` at a time. */
  private async eachLimited<T>(items: readonly T[], work: (item: T) => Promise<void>): Promise<void> {
    let next = 0;
    const worker = async () => {
      while (next < items.length) await work(items[next++]!);
    };
    await Promise.all(Array.from({ length: Math.min(this.concurrency, items.length) }, worker));
  }
}

const keyOf = (roomId: string, connectionId: string) => `${roomId}\n${connectionId}`;

/** A bounded memory: the entry goes last, the oldest is dropped past `max`. */
function remember<V>(map: Map<string, V>, key: string, value: V, max: number): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > max) map.delete(map.keys().next().value!);
}

/** Why a room's subscriptions end with it: a session that lost its host says so, whatever state it ended in. */
function endReasonOf(room: Room): EndReason {
  const reason: string | undefined = room.failureReason;
  if (reason === 'host-lost') return 'host-lost';
  return room.state === 'failed' ? 'failed' : 'closed';
}

function documentIfSound(item: Record<string, unknown>): SessionDocument | undefined {
  try {
    return documentOf(item);
  } catch (error) {
    if (error instanceof SessionDocumentCorruptError) return undefined;
    throw error;
  }
}
