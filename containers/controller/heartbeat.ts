import { createHash } from 'node:crypto';

/**
 * Players in the room as the platform confirmed them: keys whose `joined` it accepted,
 * minus keys whose `left` it accepted. Keys are held only as SHA-256 digests.
 */
export class PlayerLoad {
  private readonly keys = new Set<string>();

  /** `onChange`: told the new count whenever it changes. */
  constructor(private readonly onChange?: (players: number) => void) {}

  joined(key: string): void {
    this.changed(() => this.keys.add(digest(key)));
  }

  left(key: string): void {
    this.changed(() => this.keys.delete(digest(key)));
  }

  private changed(update: () => unknown): void {
    const before = this.keys.size;
    update();
    if (this.keys.size !== before) this.onChange?.(this.keys.size);
  }

  get players(): number {
    return this.keys.size;
  }
}

const digest = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

export interface Ticker {
  stop(): void;
}

/**
 * Runs `beat` now and then every `intervalMs`, one at a time: a slow send delays the next
 * beat rather than piling sends up.
 */
export function startHeartbeat(intervalMs: number, beat: () => Promise<unknown>): Ticker {
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    const started = Date.now();
    await beat();
    if (!stopped) timer = setTimeout(tick, Math.max(0, intervalMs - (Date.now() - started)));
  };
  void tick();
  return {
    stop: () => {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
