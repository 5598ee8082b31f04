import type { SweepPolicy } from '../../core/rooms/sweep';

/** The local cloud's sweep settings (heartbeat every 2 s, dead after 10 s), for sweeper tests. */
export const testSweepPolicy: SweepPolicy = {
  heartbeatTimeoutS: 10,
  heartbeatIntervalS: 2,
  sweepIntervalS: 5,
  lateToleranceS: 2,
  spawnGraceS: 2,
};
