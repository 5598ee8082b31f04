import { counterTtl, rateWindow, retryAfterSeconds } from '../../../../core/abuse/rate-limit';
import { parseConfig } from '../../../../core/infra/config';

const at = (iso: string) => new Date(iso);
const epochS = (iso: string) => Date.parse(iso) / 1000;

describe('rateWindow', () => {
  it.each([
    ['the first instant of a window', '2026-01-01T00:01:00.000Z', 60, '2026-01-01T00:01:00.000Z'],
    ['the middle of a window', '2026-01-01T00:01:30.500Z', 60, '2026-01-01T00:01:00.000Z'],
    ['the last millisecond of a window', '2026-01-01T00:01:59.999Z', 60, '2026-01-01T00:01:00.000Z'],
    ['the first instant of the next window', '2026-01-01T00:02:00.000Z', 60, '2026-01-01T00:02:00.000Z'],
    ['a 10 s window', '2026-01-01T00:00:17.000Z', 10, '2026-01-01T00:00:10.000Z'],
  ])('%s (%s, %i s) starts at %s', (_name, now, windowS, start) => {
    expect(rateWindow(at(now), windowS)).toEqual({ startS: epochS(start), endS: epochS(start) + windowS });
  });

  it('puts every instant of one window on the same counter, and the next instant on a new one', () => {
    const first = rateWindow(at('2026-01-01T00:01:00.000Z'), 60);
    expect(rateWindow(at('2026-01-01T00:01:59.999Z'), 60)).toEqual(first);
    expect(rateWindow(at('2026-01-01T00:02:00.000Z'), 60).startS).toBe(first.endS);
  });
});

describe('retryAfterSeconds', () => {
  it.each([
    ['at the window start', '2026-01-01T00:01:00.000Z', 60],
    ['half-way', '2026-01-01T00:01:30.000Z', 30],
    ['rounds a fraction up', '2026-01-01T00:01:30.001Z', 30],
    ['rounds up to a whole second', '2026-01-01T00:01:29.999Z', 31],
    ['is at least 1 in the last second', '2026-01-01T00:01:59.999Z', 1],
    ['is 1 exactly one second before the end', '2026-01-01T00:01:59.000Z', 1],
  ])('%s (%s) → %i s', (_name, now, expected) => {
    const window = rateWindow(at(now), 60);
    const retryAfter = retryAfterSeconds(at(now), window);
    expect(retryAfter).toBe(expected);
    expect(Number.isInteger(retryAfter)).toBe(true);
  });

  it('never points before the end of the window (waiting that long always lands in a new one)', () => {
    for (let ms = 0; ms < 60_000; ms += 137) {
      const now = new Date(Date.parse('2026-01-01T00:01:00.000Z') + ms);
      const window = rateWindow(now, 60);
      const retryAt = new Date(now.getTime() + retryAfterSeconds(now, window) * 1000);
      expect(rateWindow(retryAt, 60).startS).toBeGreaterThan(window.startS);
    }
  });
});

describe('counterTtl', () => {
  it('lets TTL collect a counter only after its window has ended', () => {
    const window = rateWindow(at('2026-01-01T00:01:10.000Z'), 60);
    expect(counterTtl(window)).toBeGreaterThan(window.endS);
  });
});

describe('configured limits', () => {
  const minimal = { TABLE_NAME: 'rooms', AUTH_ISSUER: 'https://id.example', AUTH_JWKS_URL: 'https://id.example/jwks' };

  it('defaults to 20 joins and 10 creations per account per minute', () => {
    expect(parseConfig(minimal).abuse).toEqual({ joinsPerMinute: 20, createsPerMinute: 10 });
  });

  it('reads both from the environment', () => {
    const env = { ...minimal, JOIN_RATE_LIMIT_PER_MINUTE: '5', CREATE_RATE_LIMIT_PER_MINUTE: '2' };
    expect(parseConfig(env).abuse).toEqual({ joinsPerMinute: 5, createsPerMinute: 2 });
  });

  it.each([
    ['JOIN_RATE_LIMIT_PER_MINUTE', '0'],
    ['JOIN_RATE_LIMIT_PER_MINUTE', 'lots'],
    ['CREATE_RATE_LIMIT_PER_MINUTE', '1.5'],
  ])('fails fast naming %s = %p', (variable, value) => {
    expect(() => parseConfig({ ...minimal, [variable]: value })).toThrow(variable);
  });
});
