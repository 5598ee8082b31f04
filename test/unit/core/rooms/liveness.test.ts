import { heartbeatCutoff, heartbeatDefaults, isJoinable } from '../../../../core/rooms/liveness';
import { aRoom } from '../../../helpers/factories';

const now = new Date('2026-01-01T00:01:00.000Z');

describe('heartbeatDefaults', () => {
  it('lets a dead server take joins for at most 10 s, and tolerates four missed heartbeats', () => {
    expect(heartbeatDefaults.timeoutS).toBeLessThanOrEqual(10);
    expect(heartbeatDefaults.timeoutS / heartbeatDefaults.intervalS).toBeGreaterThanOrEqual(5);
  });
});

describe('isJoinable', () => {
  it.each([
    ['spawning (no server to hear from yet)', aRoom({ state: 'spawning' }), true],
    ['ready, heard from 9.999 s ago', aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:00:50.001Z' }), true],
    [
      'ready, heard from exactly 10 s ago',
      aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:00:50.000Z' }),
      true,
    ],
    ['ready, silent for 10.001 s', aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:00:49.999Z' }), false],
    ['ready, no heartbeat recorded', aRoom({ state: 'ready' }), true],
    ['failed', aRoom({ state: 'failed', lastHeartbeatAt: '2026-01-01T00:00:59.000Z' }), false],
    ['closed', aRoom({ state: 'closed', lastHeartbeatAt: '2026-01-01T00:00:59.000Z' }), false],
  ])('%s → %s', (_name, room, expected) => {
    expect(isJoinable(room, now, 10)).toBe(expected);
  });
});

describe('heartbeatCutoff', () => {
  it('is the timeout before the instant, as comparable ISO text', () => {
    expect(heartbeatCutoff(now, 10)).toBe('2026-01-01T00:00:50.000Z');
  });
});
