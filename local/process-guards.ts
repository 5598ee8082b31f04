/**
 * Guards of the local cloud's own process: whatever ends the process that started it, or the
 * reader of its output, it must neither keep running nor crash half-way through stopping.
 */

/**
 * A supervisor that stops reading our output (closes its pipe ends) makes every later write
 * fail with EPIPE, emitted as an 'error' event: unhandled, that is an uncaught exception in
 * the middle of shutdown. Nobody is left to read the output, so the error is dropped.
 */
export function tolerateClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', () => undefined);
  }
}

/**
 * Calls `onOrphaned` once the process that started us is gone (`npm` killed by SIGHUP or
 * SIGKILL, or the `sh -c` that npm runs scripts through killed by the SIGTERM npm forwards):
 * the kernel then hands us to another parent, so `ppid` changes. Returns a stop function.
 */
export function watchParent(onOrphaned: (formerParent: number) => void, intervalMs = 500): () => void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    onOrphaned(parent);
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
