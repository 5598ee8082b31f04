import { cpus, freemem, totalmem } from 'node:os';
import type { HostHeartbeat } from '../core/placement/fleet-model';
import { childLogger } from '../core/infra/logger';

const log = childLogger('local-hosts');

/** What the agents need: who runs what, and where heartbeats go. */
export interface LocalHostAgentOptions {
  readonly hostIds: readonly string[];
  readonly runningOn: (hostId: string) => number;
  readonly heartbeat: (hostId: string, beat: HostHeartbeat) => Promise<void>;
  /** @default 2000 */
  readonly intervalMs?: number;
}

/** This machine's CPU use since the previous call, from the kernel's per-core counters. */
function cpuSampler(): () => number {
  const totals = () =>
    cpus().reduce(
      (sum, cpu) => {
        const t = cpu.times;
        return {
          busy: sum.busy + t.user + t.nice + t.sys + t.irq,
          all: sum.all + t.user + t.nice + t.sys + t.irq + t.idle,
        };
      },
      { busy: 0, all: 0 },
    );
  let previous = totals();
  return () => {
    const current = totals();
    const all = current.all - previous.all;
    const busy = all > 0 ? (current.busy - previous.busy) / all : 0;
    previous = current;
    return Math.min(1, Math.max(0, busy));
  };
}

/**
 * The heartbeat agents of the local cloud's hosts: every interval each host reports the
 * servers it runs and this machine's CPU and memory use (all local hosts share one machine).
 * A host can be paused, as if its agent died, to see placement skip it.
 */
export class LocalHostAgents {
  private readonly paused = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly sampleCpu = cpuSampler();
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
    const cpu = this.sampleCpu();
    const memory = Math.min(1, Math.max(0, 1 - freemem() / totalmem()));
    await Promise.all(
      this.options.hostIds
        .filter((hostId) => !this.paused.has(hostId))
        .map((hostId) =>
          this.options
            .heartbeat(hostId, { cpu, memory, servers: this.options.runningOn(hostId) })
            .catch((error: Error) => log.warn('heartbeat failed', { hostId, error })),
        ),
    );
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.beating;
  }
}
