import { captureOutput, LogTail } from '../../../local/log-tail';

const line = (fields: Record<string, unknown>) => `${JSON.stringify(fields)}\n`;

describe('LogTail', () => {
  it('keeps structured lines in order, written in any chunks, compact or indented', () => {
    const tail = new LogTail();
    const first = line({
      level: 'INFO',
      message: 'room ready',
      timestamp: '2026-03-02T12:00:00.000Z',
      roomId: 'r1',
      component: 'x',
    });
    tail.write(first.slice(0, 10));
    tail.write(first.slice(10));
    tail.write(`${JSON.stringify({ level: 'WARN', message: 'slow', roomId: 'r2' }, null, 4)}\nplain text\n`);
    const { lines, next } = tail.read({ limit: 10 });
    expect(lines).toEqual([
      { seq: 1, at: '2026-03-02T12:00:00.000Z', level: 'INFO', message: 'room ready', roomId: 'r1', component: 'x' },
      { seq: 2, at: expect.any(String), level: 'WARN', message: 'slow', roomId: 'r2' },
      { seq: 3, at: expect.any(String), level: 'INFO', message: 'plain text' },
    ]);
    expect(next).toBe(3);
  });

  it('filters by room, pages with after and limit, and keeps only the newest lines past its capacity', () => {
    const tail = new LogTail(5);
    for (let i = 1; i <= 8; i++) tail.write(line({ level: 'INFO', message: `m${i}`, roomId: i % 2 ? 'odd' : 'even' }));
    expect(tail.read({ limit: 100 }).lines.map((l) => l.message)).toEqual(['m4', 'm5', 'm6', 'm7', 'm8']);
    const page = tail.read({ roomId: 'odd', limit: 1 });
    expect(page).toMatchObject({ lines: [{ message: 'm5' }], next: 5 });
    expect(tail.read({ roomId: 'odd', after: page.next, limit: 10 }).lines.map((l) => l.message)).toEqual(['m7']);
    expect(tail.read({ after: 8, limit: 10 })).toEqual({ lines: [], next: 8 });
  });

  it('drops the fields of an oversized line but keeps its message', () => {
    const tail = new LogTail();
    tail.write(line({ level: 'ERROR', message: 'big', roomId: 'r', blob: 'x'.repeat(10_000) }));
    expect(tail.read({ limit: 1 }).lines).toEqual([
      { seq: 1, at: expect.any(String), level: 'ERROR', message: 'big', roomId: 'r', truncated: true },
    ]);
  });

  it('copies what a stream is written while still writing it, until stopped', () => {
    const tail = new LogTail();
    const written: string[] = [];
    const stream = { write: (chunk: string) => (written.push(chunk), true) } as unknown as NodeJS.WriteStream;
    const stop = captureOutput(tail, [stream]);
    stream.write(line({ level: 'INFO', message: 'one' }));
    stop();
    stream.write(line({ level: 'INFO', message: 'two' }));
    expect(written).toHaveLength(2);
    expect(tail.read({ limit: 10 }).lines.map((l) => l.message)).toEqual(['one']);
  });
});
