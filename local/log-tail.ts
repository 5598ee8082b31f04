import type { LogLine, LogLines, LogLinesPage, LogLinesQuery } from '../core/infra/log-lines';

/** Lines kept: the oldest is dropped first. */
const logTailCapacity = 5_000;
/**
 * A line's fields beyond this (serialized) are dropped, its message kept: 5,000 lines stay
 * within about 20 MB however much one line logged.
 */
const maxLineBytes = 4_096;
/** A pretty-printed entry (POWERTOOLS_DEV) that never closes is given up past this many lines. */
const maxEntryLines = 500;

/**
 * The local cloud's ring buffer of the structured log lines it printed (Powertools' JSON, one
 * line each, or indented over several with POWERTOOLS_DEV): what `GET /v1/dev/logs` serves.
 * Output that is not JSON (a child's line written through this process) is kept as its message.
 */
export class LogTail implements LogLines {
  private readonly lines: LogLine[] = [];
  private seq = 0;
  /** An indented entry being read line by line. */
  private pending: string[] = [];
  /** Text after the last newline written. */
  private partial = '';

  constructor(private readonly capacity = logTailCapacity) {}

  /** Output as written to stdout or stderr, in any chunks. */
  write(chunk: string): void {
    const text = this.partial + chunk;
    const parts = text.split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.line(line);
  }

  read(query: LogLinesQuery): LogLinesPage {
    const after = query.after ?? 0;
    const found: LogLine[] = [];
    let next = Math.max(after, this.lines.at(-1)?.seq ?? 0);
    for (const line of this.lines) {
      if (line.seq <= after || (query.roomId !== undefined && line.roomId !== query.roomId)) continue;
      if (found.length === query.limit) {
        next = found.at(-1)!.seq;
        break;
      }
      found.push(line);
    }
    return { lines: found, next };
  }

  private line(raw: string): void {
    const line = raw.replace(/\r$/, '');
    if (this.pending.length > 0) {
      this.pending.push(line);
      if (line === '}' || this.pending.length > maxEntryLines) this.entry(this.pending.splice(0).join('\n'));
      return;
    }
    if (line === '{') this.pending.push(line);
    else if (line.trim() !== '') this.entry(line);
  }

  private entry(text: string): void {
    let fields: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(text);
      fields =
        parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as never) : { message: text };
    } catch {
      fields = { message: text };
    }
    this.push(fields);
  }

  private push(fields: Record<string, unknown>): void {
    const { timestamp, level, message, roomId, ...rest } = fields;
    const base = {
      seq: ++this.seq,
      at: typeof timestamp === 'string' ? timestamp : new Date().toISOString(),
      level: typeof level === 'string' ? level : 'INFO',
      message: typeof message === 'string' ? message : JSON.stringify(message ?? ''),
      ...(typeof roomId === 'string' ? { roomId } : {}),
    };
    const full = { ...rest, ...base };
    this.lines.push(Buffer.byteLength(JSON.stringify(full)) <= maxLineBytes ? full : { ...base, truncated: true });
    if (this.lines.length > this.capacity) this.lines.shift();
  }
}

type Write = typeof process.stdout.write;

/**
 * Copies everything this process writes to stdout and stderr into `tail`, still writing it
 * as before. Returns the function that stops copying.
 */
export function captureOutput(
  tail: LogTail,
  streams: readonly NodeJS.WriteStream[] = [process.stdout, process.stderr],
): () => void {
  const originals = streams.map((stream) => {
    const original = stream.write;
    const copying = function (this: NodeJS.WriteStream, chunk: unknown, ...rest: unknown[]): boolean {
      try {
        tail.write(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
      } catch {
        // The tail is a convenience: never let it break the process's own output.
      }
      return (original as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
    };
    stream.write = copying as Write;
    return { stream, original, copying };
  });
  return () => {
    for (const { stream, original, copying } of originals) if (stream.write === copying) stream.write = original;
  };
}

/**
 * The local cloud's tail of its own output, from its first line: copying starts now, and the
 * stop it adds to `started` (run last, as stops run in reverse) ends it.
 */
export function startLogTail(started: { push(part: { stop(): Promise<void> }): unknown }): LogTail {
  const tail = new LogTail();
  const stop = captureOutput(tail);
  started.push({ stop: async () => stop() });
  return tail;
}
