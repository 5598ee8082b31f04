/**
 * The soak's judgements, as pure functions of what it recorded: whether memory stayed flat,
 * which answers were errors, and each requirement's verdict.
 */

export interface MemorySample {
  /** Seconds since the traffic started. */
  readonly atS: number;
  readonly rssMb: number;
}

/**
 * Memory is flat when the median RSS of the run's last third is at most `tolerance` above
 * the median of its first third (after the warm-up samples are dropped). A leak of a few
 * hundred bytes per request grows steadily with the requests; V8's heap breathing and the
 * JIT move the RSS by a few percent either way.
 */
export function judgeMemory(
  samples: readonly MemorySample[],
  warmupS: number,
  tolerance = 0.15,
): { flat: boolean; firstMb: number; lastMb: number; growth: number } {
  const kept = samples.filter((s) => s.atS >= warmupS);
  const third = Math.max(1, Math.floor(kept.length / 3));
  const median = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.floor((sorted.length - 1) / 2)] ?? Number.NaN;
  };
  const firstMb = median(kept.slice(0, third).map((s) => s.rssMb));
  const lastMb = median(kept.slice(-third).map((s) => s.rssMb));
  const growth = lastMb / firstMb - 1;
  return { flat: kept.length >= 3 && growth <= tolerance, firstMb, lastMb, growth };
}

/** A window of time (ms since the traffic started) during which a fault was in force. */
export interface FaultWindow {
  readonly name: string;
  readonly fromMs: number;
  /** When the platform was serving again (undefined: it never was). */
  readonly untilMs: number | undefined;
}

export interface Answer {
  /** What the virtual player was doing: `join`, `find-or-create`, `check`, … */
  readonly operation: string;
  readonly atMs: number;
  /** The HTTP status, or 0 for a request that got no answer within the client's timeout. */
  readonly status: number;
  readonly code?: string;
}

/**
 * 409 (full, not joinable, already ended) and 429 (rate limits) are answers the API owes
 * players under load; so is 404 for a room asked for by id after it ended and was removed
 * (the player's list of rooms was older than the room's end).
 */
export function isExpected(answer: Answer): boolean {
  if (answer.status >= 200 && answer.status < 300) return true;
  if (answer.status === 409 || answer.status === 429) return true;
  return answer.status === 404 && answer.code === 'NOT_FOUND' && byRoomId.has(answer.operation);
}

/** Operations that name a room by id. */
const byRoomId = new Set(['join', 'leave', 'check', 'probe', 'stall-join']);

/** The answer fell into a fault's window, widened by `graceMs` after it (queued requests drain). */
export function duringFault(answer: Answer, windows: readonly FaultWindow[], graceMs: number): FaultWindow | undefined {
  return windows.find(
    (w) => answer.atMs >= w.fromMs && answer.atMs <= (w.untilMs ?? Number.POSITIVE_INFINITY) + graceMs,
  );
}

/** The first `limit` unexpected answers outside every fault window: what, when (s into the run). */
export function firstUnexpectedOutsideFaults(
  answers: readonly Answer[],
  windows: readonly FaultWindow[],
  graceMs: number,
  limit = 5,
): string[] {
  return answers
    .filter((a) => !isExpected(a) && !duringFault(a, windows, graceMs))
    .slice(0, limit)
    .map(
      (a) =>
        `${a.operation} ${a.status === 0 ? 'timeout' : `${a.status} ${a.code ?? ''}`.trim()} at ${(a.atMs / 1000).toFixed(1)} s`,
    );
}

/** Unexpected answers outside every fault window, by status and code. */
export function unexpectedOutsideFaults(
  answers: readonly Answer[],
  windows: readonly FaultWindow[],
  graceMs: number,
): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    if (isExpected(answer) || duringFault(answer, windows, graceMs)) continue;
    const key = answer.status === 0 ? 'timeout' : `${answer.status} ${answer.code ?? ''}`.trim();
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

export interface Requirement {
  readonly name: string;
  readonly pass: boolean;
  readonly detail: string;
  /** False for a requirement this run cannot judge (it reports figures only and fails nothing). */
  readonly judged?: boolean;
}

/** How a requirement reads in the report: PASS, FAIL, or not judged. */
export function verdictOf(requirement: Requirement): 'PASS' | 'FAIL' | 'NOT JUDGED' {
  if (requirement.judged === false) return 'NOT JUDGED';
  return requirement.pass ? 'PASS' : 'FAIL';
}

/**
 * The client's view of a fault's recovery: ms from the fault to the first 2xx answer sent after
 * it that begins a run of `streak` successes with no unexpected answer among them (a lone
 * success between failures is not recovery). undefined: the traffic never recovered.
 */
export function recoveryFromAnswers(answers: readonly Answer[], faultAtMs: number, streak = 3): number | undefined {
  const after = answers.filter((a) => a.atMs >= faultAtMs).sort((a, b) => a.atMs - b.atMs);
  let runStart: number | undefined;
  let run = 0;
  for (const answer of after) {
    if (answer.status >= 200 && answer.status < 300) {
      runStart ??= answer.atMs;
      run += 1;
      if (run >= streak) return runStart - faultAtMs;
    } else if (!isExpected(answer)) {
      runStart = undefined;
      run = 0;
    }
  }
  return undefined;
}

/**
 * The verdict on a room bloated by join/leave cycles (issue 26): no 5xx and no request left
 * unanswered among its joins and leaves, the room still ready, and a fresh join taken at
 * the end. 409 and 429 are answers the API owes (a full room, a rate limit).
 */
export function bloatVerdict(run: {
  readonly answers: readonly Answer[];
  readonly cycles: number;
  readonly accounts: number;
  readonly roomState: string | undefined;
  readonly joinAfter: number;
}): Requirement {
  const errors: Record<string, number> = {};
  for (const a of run.answers)
    if (a.status === 0 || a.status >= 500) {
      const key = a.status === 0 ? 'timeout' : `${a.status} ${a.code ?? ''}`.trim();
      errors[key] = (errors[key] ?? 0) + 1;
    }
  const healthy = run.roomState === 'ready' && run.joinAfter >= 200 && run.joinAfter < 300;
  return {
    name: 'a room bloated by join/leave cycles stays healthy',
    pass: Object.keys(errors).length === 0 && healthy,
    detail:
      `${run.cycles} join+leave cycles from ${run.accounts} accounts within their rate limits: ` +
      `${Object.keys(errors).length === 0 ? 'no 5xx' : `errors ${JSON.stringify(errors)}`}; ` +
      `the room is ${run.roomState ?? 'unreadable'}, a fresh join answered ${run.joinAfter}`,
  };
}

/** The verdict on a DynamoDB stall while players connect: no room failed, every player in soon after. */
export function stallVerdict(
  run: {
    readonly stallS: number;
    readonly rooms: readonly string[];
    readonly failedRooms: readonly string[];
    readonly welcomedAfterS: readonly (number | undefined)[];
  },
  welcomeWithinS: number,
): Requirement {
  const late = run.welcomedAfterS.filter((s) => s === undefined || s > welcomeWithinS).length;
  const figures = run.welcomedAfterS.map((s) => (s === undefined ? 'never' : `${s.toFixed(1)} s`)).join(', ');
  return {
    name: `no healthy room failed by a ${run.stallS} s DynamoDB stall while players connect`,
    pass: run.rooms.length > 0 && run.failedRooms.length === 0 && late === 0,
    detail:
      run.rooms.length === 0
        ? 'no live room to connect to'
        : `${run.rooms.length} rooms with a joined in flight: ${run.failedRooms.length} not ready after the stall (expected 0)` +
          `${run.failedRooms.length > 0 ? ` [${run.failedRooms.join(', ')}]` : ''}; players in ${figures} after it (limit ${welcomeWithinS} s)`,
  };
}
