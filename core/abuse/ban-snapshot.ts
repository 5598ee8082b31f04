import { delayWithin, timerLater, type Later } from '../infra/later';
import { childLogger } from '../infra/logger';
import type { BanDirectory, Bans } from './ban-store';
import { banInForce } from './bans';

const log = childLogger('abuse');

/**
 * How old a ban snapshot may be when it answers: a ban (or its lifting) placed through another
 * process takes effect within this time; through this process, at once.
 */
export const banSnapshotMaxAgeMs = 1_000;
/**
 * Past this age a request that finds the snapshot starts its refresh in the background, a
 * little after the request (core/infra/later.ts), so requests rarely wait for one.
 */
export const banSnapshotRefreshAheadMs = 500;

/** What the snapshot says of one account right now. */
export type BanLookup =
  | { readonly state: 'fresh'; readonly ban: { readonly expiresAt?: string } | undefined }
  /**
   * Too old to answer (or never taken): `lookup` refreshes it. `knownBanned`: whether the old
   * snapshot had the account banned (false when there was none).
   */
  | { readonly state: 'stale'; readonly knownBanned: boolean };

export interface KeepFreshOptions {
  /** The time requests judge by (the platform's clock): a refresh is as new as its start. */
  readonly now: () => Date;
  /** Stops the refreshing. */
  readonly signal: AbortSignal;
  /** @default banSnapshotRefreshAheadMs */
  readonly intervalMs?: number;
  /** Told of the first failure of each run of failed refreshes. @default a warning in the log */
  readonly reportFailure?: (error: unknown) => void;
}

interface Taken {
  readonly directory: BanDirectory;
  /** The caller's `now` when the refresh STARTED: the snapshot is at least this new. */
  readonly takenAtMs: number;
  /** The local change sequence when the refresh started. */
  readonly sequence: number;
}

/**
 * Every ban, as one process knows it: the whole ban directory, read once a second (a small
 * epoch read; the list only when it changed) instead of one GetItem per join. The join path
 * asks `peek`, which answers from memory; a new account costs no read.
 *
 * Bans and lifts made through this process are applied at once (`placed`, `lifted`); a
 * refresh that started before such a change never undoes it.
 */
export class BanSnapshot {
  private taken: Taken | undefined;
  private refreshing: { readonly fromMs: number; readonly taken: Promise<Taken> } | undefined;
  /** A refresh ahead found due and waiting to begin: the requests that find it due meanwhile add none. */
  private refreshAheadWaiting = false;
  private sequence = 0;
  /** Local changes newer than the snapshot: account → the ban (or undefined: lifted) and its sequence. */
  private readonly local = new Map<string, { ban: { expiresAt?: string } | undefined; sequence: number }>();

  constructor(
    private readonly bans: Pick<Bans, 'directory'>,
    private readonly later: Later = timerLater,
  ) {}

  /** Answers from memory if the snapshot is at most `banSnapshotMaxAgeMs` old at `now`. */
  peek(account: string, now: Date): BanLookup {
    const taken = this.taken;
    const age = taken ? now.getTime() - taken.takenAtMs : Number.POSITIVE_INFINITY;
    // A clock that moved backwards cannot vouch for the snapshot's age: refresh.
    const change = this.local.get(account);
    const known = change ? change.ban : taken?.directory.bans.get(account);
    const ban = known && banInForce(known, now) ? known : undefined;
    if (!taken || age < 0 || age >= banSnapshotMaxAgeMs) return { state: 'stale', knownBanned: ban !== undefined };
    if (age >= banSnapshotRefreshAheadMs) this.refreshAfterTheRequest(now, banSnapshotMaxAgeMs - age);
    return { state: 'fresh', ban };
  }

  /**
   * The refresh ahead, begun `afterTheRequestMs` later, or halfway to the snapshot's end if that
   * is sooner (`delayWithin`): the request that found it due makes its own reads and writes
   * first. Counted from the request's time plus that delay, no later than the read really
   * begins (a Date drops the fraction of a millisecond): the refreshed
   * snapshot can only seem older than it is, never younger, so the 1 s bound holds however
   * late the timer fires (a Lambda frozen meanwhile). Until it lands, the snapshot answers only
   * while it is under 1 s old, as before.
   */
  private refreshAfterTheRequest(now: Date, lifeLeftMs: number): void {
    if (this.refreshAheadWaiting) return;
    this.refreshAheadWaiting = true;
    const delayMs = delayWithin(lifeLeftMs);
    this.later(() => {
      this.refreshAheadWaiting = false;
      const begun = new Date(now.getTime() + delayMs);
      const taken = this.taken;
      // A refresh since (a request that could not wait, the local cloud's timer) made it young again.
      if (taken && begun.getTime() - taken.takenAtMs < banSnapshotRefreshAheadMs) return;
      this.refresh(begun).catch(() => undefined);
    }, delayMs);
  }

  /** The account's ban in force at `now`, refreshing the snapshot first if it is too old. */
  async lookup(account: string, now: Date): Promise<{ readonly expiresAt?: string } | undefined> {
    const seen = this.peek(account, now);
    if (seen.state === 'fresh') return seen.ban;
    // Judged from the refresh this request waited for, however long it took: it started after the request.
    const taken = await this.refresh(now);
    const change = this.local.get(account);
    const ban = change ? change.ban : taken.directory.bans.get(account);
    return ban && banInForce(ban, now) ? ban : undefined;
  }

  /** A ban placed through this process: in force here at once. */
  placed(account: string, ban: { expiresAt?: string }): void {
    this.local.set(account, { ban, sequence: ++this.sequence });
  }

  /** A ban lifted through this process: gone here at once. */
  lifted(account: string): void {
    this.local.set(account, { ban: undefined, sequence: ++this.sequence });
  }

  /**
   * Keeps the snapshot young in a long-lived process (the local cloud): refreshes now and then
   * every `intervalMs`, one at a time, until `signal` aborts, so a request after a quiet spell
   * still answers from memory instead of waiting for a read. Never throws: a failed read is
   * reported once per run of failures (the next success ends the run) and tried again on the
   * next tick. Its timer does not keep the process alive. Not for Lambda: a process frozen
   * between invocations refreshes nothing, and refresh-ahead (`peek`) covers a busy one.
   */
  keepFresh(options: KeepFreshOptions): void {
    const { now, signal, intervalMs = banSnapshotRefreshAheadMs } = options;
    const report = options.reportFailure ?? ((error: unknown) => log.warn('ban snapshot refresh failed', { error }));
    let timer: NodeJS.Timeout | undefined;
    let failing = false;
    const tick = async () => {
      const started = Date.now();
      try {
        await this.refresh(now());
        failing = false;
      } catch (error) {
        if (!failing) report(error);
        failing = true;
      }
      if (signal.aborted) return;
      timer = setTimeout(() => void tick(), Math.max(0, intervalMs - (Date.now() - started)));
      timer.unref();
    };
    if (signal.aborted) return;
    signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
    void tick();
  }

  /** One refresh at a time per process; everyone who needs it shares it. */
  private refresh(now: Date): Promise<Taken> {
    const shared = this.refreshing;
    // A refresh that started too long ago (a slow DynamoDB) cannot vouch for the last second.
    if (shared && shared.fromMs <= now.getTime() && now.getTime() - shared.fromMs < banSnapshotMaxAgeMs) {
      return shared.taken;
    }
    const started = { fromMs: now.getTime(), taken: this.read(now) };
    this.refreshing = started;
    void started.taken
      .finally(() => {
        if (this.refreshing === started) this.refreshing = undefined;
      })
      .catch(() => undefined);
    return started.taken;
  }

  private async read(now: Date): Promise<Taken> {
    const sequence = this.sequence;
    const previous = this.taken;
    const read = await this.bans.directory(previous?.directory.epoch);
    const directory = read === 'unchanged' && previous ? previous.directory : (read as BanDirectory);
    const taken = { directory, takenAtMs: now.getTime(), sequence };
    // Kept only if no older in either sense than the one kept: a read that counts from an earlier
    // time (a refresh ahead counts from before it began, a request's clock may lag another's)
    // but began later, or the other way round, must not replace what already saw more.
    const current = this.taken;
    if (current && (current.takenAtMs > taken.takenAtMs || current.sequence > taken.sequence)) return taken;
    this.taken = taken;
    // Local changes the kept directory may not have seen stay; older ones are in it now.
    for (const [account, change] of this.local) if (change.sequence <= sequence) this.local.delete(account);
    return taken;
  }
}
