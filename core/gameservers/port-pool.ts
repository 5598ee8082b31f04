import { createServer } from 'node:net';
import { NoHealthyHostError } from './errors';

/**
 * The ports of one host, handed out so that no two live servers ever share one. Allocation
 * is synchronous (no await between choosing and taking a port), so concurrent spawns in one
 * process cannot pick the same port; a bind probe skips ports some other process holds.
 */
export class PortPool {
  private readonly taken = new Set<number>();
  private cursor: number;

  constructor(
    readonly first = 38_000,
    readonly last = 40_000,
  ) {
    if (first > last) throw new RangeError(`Empty port range ${first}–${last}.`);
    this.cursor = first;
  }

  get inUse(): number {
    return this.taken.size;
  }

  /** Takes `count` ports that are free here and now, or throws NoHealthyHostError. */
  async allocate(count: number, probe: (port: number) => Promise<boolean> = isBindable): Promise<number[]> {
    const chosen: number[] = [];
    const skipped: number[] = [];
    try {
      const size = this.last - this.first + 1;
      for (let scanned = 0; chosen.length < count && scanned < size; scanned++) {
        const port = this.cursor;
        this.cursor = port === this.last ? this.first : port + 1;
        if (this.taken.has(port)) continue;
        this.taken.add(port);
        if (await probe(port)) chosen.push(port);
        else skipped.push(port);
      }
      if (chosen.length < count) {
        throw new NoHealthyHostError(`No ${count} free port(s) left in ${this.first}–${this.last} on this host.`);
      }
      return chosen;
    } catch (error) {
      for (const port of chosen) this.taken.delete(port);
      throw error;
    } finally {
      for (const port of skipped) this.taken.delete(port);
    }
  }

  release(ports: readonly number[]): void {
    for (const port of ports) this.taken.delete(port);
  }
}

/** Whether nothing else on this machine listens on the port right now. */
function isBindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ port, host: '0.0.0.0', exclusive: true }, () => server.close(() => resolve(true)));
  });
}
