import {
  backlogAllowance,
  causeOfSilence,
  heartbeatLag,
  judgeHeartbeats,
  type HeartbeatPipeline,
  type HeartbeatObservations,
} from '../../../../core/rooms/heartbeat-evidence';

/** The defaults: heartbeats every 2 s, timeout 10 s; the local cloud sweeps every 5 s. */
const policy = { heartbeatTimeoutS: 10, heartbeatIntervalS: 2, sweepIntervalS: 5, lateToleranceS: 2 };
const t0 = Date.parse('2026-01-01T00:10:00.000Z');
const at = (seconds: number) => new Date(t0 + seconds * 1000);
const iso = (seconds: number) => at(seconds).toISOString();

function observe(overrides: Partial<HeartbeatObservations> = {}): HeartbeatObservations {
  return { memory: { lastSweepAt: iso(-5) }, backlog: 0, liveRooms: 10, ...overrides };
}

describe('judgeHeartbeats', () => {
  it.each<[string, HeartbeatObservations, false | 'judged' | string]>([
    ['on time, empty queue', observe(), 'judged'],
    ['on time, a few messages in flight', observe({ backlog: 3, liveRooms: 1 }), 'judged'],
    ['on time, less than one pending message per live room', observe({ backlog: 40, liveRooms: 40 }), 'judged'],
    ['a backlog: one silent room worth of heartbeats pending', observe({ backlog: 4, liveRooms: 1 }), 'backlog'],
    ['a backlog: a 20 s consumer stall, 10 per room', observe({ backlog: 10 * 28, liveRooms: 28 }), 'backlog'],
    ['the queue cannot be read', observe({ backlog: undefined }), 'queue-unreadable'],
    [
      'the sweep fires 20 s late (the process was stopped)',
      observe({ memory: { lastSweepAt: iso(-25) } }),
      'sweep-late',
    ],
    ['the previous sweep never finished (DynamoDB errors)', observe({ memory: {} }), 'sweep-late'],
    [
      'a grace period started by an earlier stall is still running',
      observe({ memory: { lastSweepAt: iso(-5), graceUntil: iso(3) } }),
      'grace',
    ],
    ['the grace period is over', observe({ memory: { lastSweepAt: iso(-5), graceUntil: iso(0) } }), 'judged'],
  ])('%s → %s', (_name, observations, expected) => {
    const verdict = judgeHeartbeats(at(0), observations, policy);
    expect(verdict.judge ? 'judged' : verdict.why).toBe(expected);
    expect(verdict.memory.lastSweepAt).toBe(iso(0));
  });

  it('judges as of the instant just before the queue was read', () => {
    const verdict = judgeHeartbeats(at(0), observe(), policy);
    expect(verdict).toEqual({ judge: true, asOf: at(0), memory: { lastSweepAt: iso(0), judgedAt: iso(0) } });
  });

  it('starts a grace of one heartbeat timeout after a late sweep, and keeps it until it ends', () => {
    const late = judgeHeartbeats(at(0), observe({ memory: { lastSweepAt: iso(-25) } }), policy);
    expect(late.memory).toEqual({ lastSweepAt: iso(0), graceUntil: iso(10) });
    const during = judgeHeartbeats(at(5), observe({ memory: late.memory }), policy);
    expect(during).toMatchObject({ judge: false, why: 'grace', memory: { graceUntil: iso(10) } });
    const after = judgeHeartbeats(at(10), observe({ memory: during.memory }), policy);
    expect(after).toEqual({ judge: true, asOf: at(10), memory: { lastSweepAt: iso(10), judgedAt: iso(10) } });
  });

  it('extends the grace while the queue stays unreadable, never shortens it', () => {
    const first = judgeHeartbeats(at(0), observe({ backlog: undefined }), policy);
    expect(first.memory.graceUntil).toBe(iso(10));
    const second = judgeHeartbeats(at(5), observe({ memory: first.memory, backlog: undefined }), policy);
    expect(second.memory.graceUntil).toBe(iso(15));
  });

  it('a 60 s stall of the whole platform fails nothing: every sweep until one timeout after it is refused', () => {
    // Sweeps every 5 s; the process is stopped from 0 s to 60 s; heartbeats pile up (2 per room per 4 s).
    const rooms = 28;
    let memory = { lastSweepAt: iso(0) };
    const verdicts: string[] = [];
    // First sweep after the stall fires late; the backlog drains over the next 6 s.
    const sweeps = [
      { t: 60, backlog: rooms * 30 },
      { t: 63, backlog: rooms * 10 },
      { t: 66, backlog: 0 },
      { t: 69, backlog: 0 },
    ];
    for (const sweep of sweeps) {
      const verdict = judgeHeartbeats(
        at(sweep.t),
        observe({ memory, backlog: sweep.backlog, liveRooms: rooms }),
        policy,
      );
      verdicts.push(verdict.judge ? 'judged' : verdict.why);
      memory = verdict.memory as typeof memory;
    }
    expect(verdicts).toEqual(['sweep-late', 'grace', 'grace', 'grace']);
    expect(judgeHeartbeats(at(70), observe({ memory, liveRooms: rooms }), policy).judge).toBe(true);
  });
});

describe('backlogAllowance', () => {
  it.each([
    [0, 3],
    [1, 3],
    [3, 3],
    [100, 100],
  ])('with %i live rooms → %i', (rooms, expected) => {
    expect(backlogAllowance(policy, rooms)).toBe(expected);
  });

  it('never admits the pending heartbeats of one room silent for a whole timeout', () => {
    const pendingWhenSilent = policy.heartbeatTimeoutS / policy.heartbeatIntervalS - 1;
    expect(backlogAllowance(policy, 1)).toBeLessThan(pendingWhenSilent);
  });
});

describe('judgeHeartbeats after a reported disruption of the pipeline', () => {
  it.each<[string, HeartbeatPipeline, string]>([
    [
      'heartbeats dropped 3 s ago (a DynamoDB stall just ended): their rooms are in no backlog',
      { disruptedAt: iso(-3) },
      'disrupted',
    ],
    ['a disruption one whole timeout ago: every room has been heard since', { disruptedAt: iso(-10) }, 'judged'],
    ['nothing reported', {}, 'judged'],
  ])('%s → %s', (_name, pipeline, expected) => {
    const verdict = judgeHeartbeats(at(0), observe({ pipeline }), policy);
    expect(verdict.judge ? 'judged' : verdict.why).toBe(expected);
  });

  it('remembers when it last judged, through sweeps that do not', () => {
    const judged = judgeHeartbeats(at(0), observe(), policy);
    const held = judgeHeartbeats(at(5), observe({ memory: judged.memory, backlog: 500, liveRooms: 1 }), policy);
    expect(held.memory).toEqual({ lastSweepAt: iso(5), judgedAt: iso(0) });
  });
});

describe('causeOfSilence: whose silence a join found', () => {
  // The room was last heard 12 s ago (heartbeat timeout 10 s).
  const lastHeard = iso(-12);
  it.each<[string, HeartbeatPipeline, string]>([
    ['other rooms heard 1 s ago, no disruption: the server is dead', { heardAt: iso(-1) }, 'room'],
    ['a sweep found the queue current after its next two heartbeats were due', { judgedAt: iso(-7) }, 'room'],
    [
      'a disruption before the room went silent says nothing about it',
      { heardAt: iso(-1), disruptedAt: iso(-20) },
      'room',
    ],
    [
      'heartbeats dropped after it was last heard (a DynamoDB stall)',
      { heardAt: iso(-1), disruptedAt: iso(-3) },
      'platform:disrupted',
    ],
    [
      'nothing heard since it went silent (the stall just ended, nothing reported yet)',
      { heardAt: iso(-13), judgedAt: iso(-30) },
      'platform:not-hearing',
    ],
    ['heard only within two intervals of its last heartbeat', { heardAt: iso(-9) }, 'platform:not-hearing'],
    ['nothing ever reported', {}, 'platform:not-hearing'],
    ['the sweeper is in a grace period', { heardAt: iso(-1), graceUntil: iso(4) }, 'platform:grace'],
  ])('%s → %s', (_name, pipeline, expected) => {
    const verdict = causeOfSilence(at(0), lastHeard, pipeline, policy);
    expect(verdict.cause === 'room' ? 'room' : `platform:${verdict.why}`).toBe(expected);
  });

  it('says when to ask again: the end of a grace period, else one heartbeat interval', () => {
    expect(causeOfSilence(at(0), lastHeard, { graceUntil: iso(4.2) }, policy)).toMatchObject({ retryAfterS: 5 });
    expect(causeOfSilence(at(0), lastHeard, { disruptedAt: iso(-1) }, policy)).toMatchObject({ retryAfterS: 2 });
    expect(causeOfSilence(at(0), lastHeard, {}, policy)).toMatchObject({ retryAfterS: 2 });
  });
});

describe('heartbeatLag', () => {
  it.each([
    [50, 'fresh'],
    [2_000, 'fresh'],
    [5_000, 'slow'],
    [8_000, 'late'],
    [25_000, 'late'],
  ])('a heartbeat applied %i ms after it was sent → %s', (lagMs, expected) => {
    expect(heartbeatLag(lagMs, policy)).toBe(expected);
  });
});
