import fc from 'fast-check';
import {
  admit,
  cutoffMs,
  decide,
  emptyRateLog,
  logTtl,
  maxRateLimit,
  retryAfterSeconds,
  ringSlot,
  type RateLimitPolicy,
  type RateLog,
} from '../../../../core/abuse/rate-limit';
import { parseConfig } from '../../../../core/infra/config';
import { busiestSpan } from '../../../helpers/busiest-span';

const policy: RateLimitPolicy = { action: 'join', limit: 20, windowS: 60 };
const t0 = Date.parse('2026-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(t0 + ms);

/** Runs arrivals (ms after t0, in the order given) through the rule; returns admitted times. */
function run(arrivals: readonly number[], p: RateLimitPolicy = policy): number[] {
  let log: RateLog = emptyRateLog;
  const admitted: number[] = [];
  for (const ms of arrivals) {
    const result = admit(log, p, at(ms));
    log = result.log;
    if (result.decision.admit) admitted.push(ms);
  }
  return admitted;
}

describe('decide', () => {
  it.each([
    ['an empty slot', undefined, 30_000, { admit: true, slot: 7 }],
    ['a slot exactly one window old', 0, 60_000, { admit: true, slot: 7 }],
    ['a slot one millisecond inside the window', 1, 60_000, { admit: false, retryAfterS: 1, freeAtMs: t0 + 60_001 }],
    ['a slot admitted half a window ago', 30_000, 60_000, { admit: false, retryAfterS: 30, freeAtMs: t0 + 90_000 }],
    ['a slot admitted just now', 59_999, 60_000, { admit: false, retryAfterS: 60, freeAtMs: t0 + 119_999 }],
  ])('%s → %p', (_name, slotMs, nowMs, expected) => {
    const gate = { n: 27, slotAdmittedAtMs: slotMs === undefined ? undefined : t0 + slotMs };
    expect(decide(gate, policy, at(nowMs))).toEqual(expected);
  });

  it('gates admission n on slot n mod limit', () => {
    expect([ringSlot(0, 20), ringSlot(19, 20), ringSlot(20, 20), ringSlot(47, 20)]).toEqual([0, 19, 0, 7]);
    expect(cutoffMs(at(60_000), 60)).toBe(t0);
  });
});

describe('the sliding window rule', () => {
  it('admits 20, not 40, of 40 joins in 2.3 s around a minute boundary (the fixed window let all 40 through)', () => {
    const arrivals = Array.from({ length: 40 }, (_, i) => 58_850 + Math.round((i * 2300) / 39));
    expect(run(arrivals)).toHaveLength(20);
  });

  it('admits the next request exactly when the oldest admission of the window leaves it', () => {
    const burst = Array.from({ length: 20 }, (_, i) => i * 100);
    expect(run([...burst, 59_999])).toHaveLength(20);
    expect(run([...burst, 60_000])).toHaveLength(21);
  });

  it('never admits more than the limit in any 60 s span, for any arrival sequence (even out of order)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 240_000 }), { maxLength: 300 }),
        fc.boolean(),
        (limit, arrivals, sorted) => {
          const p = { ...policy, limit };
          const admitted = run(sorted ? [...arrivals].sort((a, b) => a - b) : arrivals, p);
          expect(busiestSpan(admitted, p.windowS)).toBeLessThanOrEqual(limit);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses an in-order request only when the last 60 s already hold the limit (exact, not merely safe)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 12 }),
        fc.array(fc.integer({ min: 0, max: 240_000 }), { maxLength: 300 }),
        (limit, raw) => {
          const p = { ...policy, limit };
          const arrivals = [...raw].sort((a, b) => a - b);
          let log: RateLog = emptyRateLog;
          const admitted: number[] = [];
          for (const ms of arrivals) {
            const inWindow = admitted.filter((a) => a > ms - 60_000).length;
            const result = admit(log, p, at(ms));
            log = result.log;
            expect(result.decision.admit).toBe(inWindow < limit);
            if (result.decision.admit) admitted.push(ms);
            else {
              // Retry-After points at the moment the oldest admission of the window leaves it.
              const oldest = admitted.filter((a) => a > ms - 60_000)[0]!;
              expect(result.decision.retryAfterS).toBe(Math.max(1, Math.ceil((oldest + 60_000 - ms) / 1000)));
            }
          }
        },
      ),
      { numRuns: 1000 },
    );
  });

  it('a refused request changes nothing, so hammering never delays the next admission', () => {
    const full = Array.from({ length: 20 }, () => 0);
    const hammering = Array.from({ length: 500 }, (_, i) => 1 + i * 100);
    expect(run([...full, ...hammering, 60_000])).toEqual([...full, 60_000]);
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    ['a whole window ahead', 0, 0, 60],
    ['rounds a fraction up', 0, 29_999, 31],
    ['is at least 1', 0, 59_999, 1],
    ['is at least 1 even when already free', 0, 61_000, 1],
  ])('%s', (_name, slotMs, nowMs, expected) => {
    expect(retryAfterSeconds(t0 + slotMs, policy, at(nowMs))).toBe(expected);
  });

  it('waiting that long always finds the slot free', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 59_999 }), (age) => {
        const now = at(100_000);
        const slot = now.getTime() - age;
        const retryAt = new Date(now.getTime() + retryAfterSeconds(slot, policy, now) * 1000);
        expect(decide({ n: 0, slotAdmittedAtMs: slot }, policy, retryAt).admit).toBe(true);
      }),
    );
  });
});

describe('logTtl', () => {
  it('lets TTL collect a log only after its newest admission has left the window', () => {
    expect(logTtl(at(500), policy)).toBeGreaterThan((t0 + 500) / 1000 + policy.windowS);
  });
});

describe('configured limits', () => {
  const minimal = { TABLE_NAME: 'rooms', AUTH_ISSUER: 'https://id.example' };

  it('defaults to 20 joins, 10 creations, 60 commands, 120 message polls and 30 invites per account in any 60 s', () => {
    expect(parseConfig(minimal).abuse).toEqual({
      joinsPerMinute: 20,
      createsPerMinute: 10,
      commandsPerMinute: 60,
      messagePollsPerMinute: 120,
      invitesPerMinute: 30,
    });
  });

  it('reads all five from the environment', () => {
    const env = {
      ...minimal,
      JOIN_RATE_LIMIT_PER_MINUTE: '5',
      CREATE_RATE_LIMIT_PER_MINUTE: '2',
      COMMAND_RATE_LIMIT_PER_MINUTE: '3',
      MESSAGE_POLL_RATE_LIMIT_PER_MINUTE: '7',
      INVITE_RATE_LIMIT_PER_MINUTE: '4',
    };
    expect(parseConfig(env).abuse).toEqual({
      joinsPerMinute: 5,
      createsPerMinute: 2,
      commandsPerMinute: 3,
      messagePollsPerMinute: 7,
      invitesPerMinute: 4,
    });
  });

  it.each([
    ['JOIN_RATE_LIMIT_PER_MINUTE', '0'],
    ['JOIN_RATE_LIMIT_PER_MINUTE', 'lots'],
    ['JOIN_RATE_LIMIT_PER_MINUTE', String(maxRateLimit + 1)],
    ['CREATE_RATE_LIMIT_PER_MINUTE', '1.5'],
    ['COMMAND_RATE_LIMIT_PER_MINUTE', '0'],
    ['MESSAGE_POLL_RATE_LIMIT_PER_MINUTE', '0'],
    ['MESSAGE_POLL_RATE_LIMIT_PER_MINUTE', String(maxRateLimit + 1)],
    ['INVITE_RATE_LIMIT_PER_MINUTE', '0'],
  ])('fails fast naming %s = %p', (variable, value) => {
    expect(() => parseConfig({ ...minimal, [variable]: value })).toThrow(variable);
  });
});
