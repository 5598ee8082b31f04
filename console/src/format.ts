/** Text for times and amounts, shared by the pages. */

/** `12 s`, `4 min`, `3 h`, `2 d`: how long, rounded to the largest unit. */
function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** How long ago an ISO time was, or `—`. */
export function ago(iso: string | undefined, now: number): string {
  if (!iso) return '—';
  const at = Date.parse(iso);
  return Number.isNaN(at) ? '—' : `${duration(now - at)} ago`;
}

/** Time left until an ISO time: `in 12 s`, or `expired`. */
export function countdown(iso: string | undefined, now: number): string {
  if (!iso) return '—';
  const left = Date.parse(iso) - now;
  if (Number.isNaN(left)) return '—';
  return left <= 0 ? 'expired' : `in ${duration(left)}`;
}

export function percent(fraction: number | undefined): string {
  return fraction === undefined ? '—' : `${Math.round(fraction * 100)} %`;
}

/** Seconds as an age, `null` (unknown) as `—`. */
export function ageS(seconds: number | null | undefined): string {
  return seconds === null || seconds === undefined ? '—' : duration(seconds * 1000);
}

export function json(value: unknown): string {
  return JSON.stringify(value, null, 2);
}

/** A message for anything thrown by a call. */
export function errorText(error: unknown): string {
  if (error && typeof error === 'object' && 'code' in error && 'message' in error)
    return `${String(error.code)}: ${String(error.message)}`;
  return error instanceof Error ? error.message : String(error);
}
