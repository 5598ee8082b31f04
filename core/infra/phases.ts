/** A phase of a scheduled run that failed, and what it threw. */
export interface PhaseFailure {
  readonly phase: string;
  readonly error: unknown;
}

/** A run in which some phases failed: the others ran to their end. */
export class PhasesFailedError extends Error {
  override readonly name = 'PhasesFailedError';
  constructor(readonly failures: readonly PhaseFailure[]) {
    super(`These phases failed (the others ran): ${failures.map((f) => f.phase).join(', ') || 'none'}.`, {
      cause: failures[0]?.error,
    });
  }
}

/**
 * Runs the phases of one scheduled run so that none takes another down: a phase that throws
 * is reported once (`onFailure`: log it, count it) and the run goes on. `finish` then fails
 * the run as a whole, naming every failed phase, so the function's error metric still sees it.
 */
export class PhaseRunner {
  readonly failures: PhaseFailure[] = [];

  constructor(private readonly onFailure: (failure: PhaseFailure) => void) {}

  /** The phase's result, or undefined when it failed. */
  async run<T>(phase: string, work: () => Promise<T>): Promise<T | undefined> {
    try {
      return await work();
    } catch (error) {
      const failure = { phase, error };
      this.failures.push(failure);
      try {
        this.onFailure(failure);
      } catch {
        // Reporting is best effort: it must not turn one failed phase into a failed run.
      }
      return undefined;
    }
  }

  /** @throws PhasesFailedError when any phase failed. */
  finish(): void {
    if (this.failures.length > 0) throw new PhasesFailedError(this.failures);
  }
}
