import { overdue } from '../../../../core/rooms/sweep';
import { aRoom } from '../../../helpers/factories';

const policy = { heartbeatTimeoutS: 20, spawnGraceS: 2 };
const at = (iso: string) => new Date(iso);

describe('overdue', () => {
  it.each([
    [
      'a spawning room within its deadline',
      aRoom({ state: 'spawning', spawnDeadline: '2026-01-01T00:00:30.000Z' }),
      '2026-01-01T00:00:31.000Z',
      undefined,
    ],
    [
      'a spawning room past deadline and grace',
      aRoom({ state: 'spawning', spawnDeadline: '2026-01-01T00:00:30.000Z' }),
      '2026-01-01T00:00:32.001Z',
      'spawn-timeout',
    ],
    [
      'a ready room with a recent heartbeat',
      aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:01:00.000Z' }),
      '2026-01-01T00:01:20.000Z',
      undefined,
    ],
    [
      'a ready room whose heartbeats stopped',
      aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:01:00.000Z' }),
      '2026-01-01T00:01:20.001Z',
      'heartbeat-lost',
    ],
    [
      'a failed room',
      aRoom({ state: 'failed', lastHeartbeatAt: '2026-01-01T00:00:00.000Z' }),
      '2026-01-02T00:00:00.000Z',
      undefined,
    ],
  ])('%s → %s', (_name, room, now, expected) => {
    expect(overdue(room, at(now), policy)).toBe(expected);
  });
});
