/**
 * The sample game's log: one JSON object per line on stdout, which the controller forwards
 * into its own structured log. Never pass a key or token here.
 */
export function log(level: 'info' | 'warn' | 'error', message: string, details: Record<string, unknown> = {}): void {
  process.stdout.write(`${JSON.stringify({ level, message, ...details })}\n`);
}
