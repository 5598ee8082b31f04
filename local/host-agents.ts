import { cpus, totalmem } from 'node:os';
import { clockTicksPerS, processGroupUsage } from './process-usage';
import type { HostHeartbeat } from '../core/placement/fleet-model';
import { childLogger } from '../core/infra/logger';

const log = childLogger('local-hosts');

/** What the agents need: who runs what, and where heartbeats go. */
export interface LocalHostAgentOptions {
  readonly hostIds: readonly string[];
  readonly runningOn: (hostId: string) => number;
  /** The process groups (sidecar pids) of each host's servers. */
  readonly groupsOn: (hostId: string) => readonly number[];
  readonly heartbeat: (hostId: string, beat: HostHeartbeat) => Promise<void>;
  /** @default 2000 */
  readonly intervalMs?: number;
}

/**
 * The heartbeat agents of the local cloud's hosts: every interval each host reports the
 * servers it runs and what they use of this machine: their CPU time since the last report
 * as a share of all cores, and their resident memory as a share of all memory. A host can
 * be paused, as if its agent died, to see placement skip it.
 */
export class LocalHostAgents {
  private readonly paused = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  /** Each host's CPU ticks at its previous report, and when. */
  private readonly previous = new Map<string, { ticks: number; at: number }>();
  private beating: Promise<void> | undefined;

  constructor(private readonly options: LocalHostAgentOptions) {}

  /** Sends the first heartbeats (awaited: hosts are healthy before the first request), then every interval. */
  async start(): Promise<void> {
    await this.beatAll();
    this.timer = setInterval(() => {
      this.beating ??= this.beatAll().finally(() => (this.beating = undefined));
    }, this.options.intervalMs ?? 2_000);
    this.timer.unref();
  }

  /** Stops one host's heartbeats: after its timeout placement gives it no new servers. */
  pause(hostId: string): void {
    this.paused.add(hostId);
  }

  resume(hostId: string): void {
    this.paused.delete(hostId);
  }

  /** One round of heartbeats now (also what the timer runs). */
  async beatAll(): Promise<void> {
    const hostIds = this.options.hostIds.filter((hostId) => !this.paused.has(hostId));
    const groups = new Map(hostIds.map((hostId) => [hostId, this.options.groupsOn(hostId)]));
    const usage = processGroupUsage(new Set([...groups.values()].flat()));
    const now = Date.now();
    const cores = Math.max(1, cpus().length);
    await Promise.all(
      hostIds.map((hostId) => {
        const mine = (groups.get(hostId) ?? []).map((g) => usage.get(g) ?? { cpuTicks: 0, rssBytes: 0 });
        const ticks = mine.reduce((sum, u) => sum + u.cpuTicks, 0);
        const rss = mine.reduce((sum, u) => sum + u.rssBytes, 0);
        const last = this.previous.get(hostId);
        this.previous.set(hostId, { ticks, at: now });
        // Ticks of servers that ended since are gone from the sum: never report less than nothing.
        const cpu =
          last && now > last.at
            ? Math.max(0, ticks - last.ticks) / clockTicksPerS / ((now - last.at) / 1000) / cores
            : 0;
        const beat = {
          cpu: clamp(cpu),
          memory: clamp(rss / totalmem()),
          servers: this.options.runningOn(hostId),
        };
        return this.options
          .heartbeat(hostId, beat)
          .catch((error: Error) => log.warn('heartbeat failed', { hostId, error }));
      }),
    );
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
  }
}

function clamp(fraction: number): number {
  return Math.min(1, Math.max(0, Number.isFinite(fraction) ? fraction : 0));
}
