import { overdue } from '../../../../core/rooms/sweep';
import { aRoom } from '../../../helpers/factories';

const policy = { heartbeatTimeoutS: 10, spawnGraceS: 2 };
const at = (iso: string) => new Date(iso);
const judged = { judge: true };
const notJudged = { judge: false };

describe('overdue', () => {
  it.each([
    [
      'a spawning room within its deadline',
      aRoom({ state: 'spawning', spawnDeadline: '2026-01-01T00:00:30.000Z' }),
      '2026-01-01T00:00:31.000Z',
      judged,
      undefined,
    ],
    [
      'a spawning room past deadline and grace',
      aRoom({ state: 'spawning', spawnDeadline: '2026-01-01T00:00:30.000Z' }),
      '2026-01-01T00:00:32.001Z',
      judged,
      'spawn-timeout',
    ],
    [
      'a ready room with a recent heartbeat',
      aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:01:00.000Z' }),
      '2026-01-01T00:01:10.000Z',
      judged,
      undefined,
    ],
    [
      'a ready room whose heartbeats stopped, with the pipeline current',
      aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:01:00.000Z' }),
      '2026-01-01T00:01:10.001Z',
      judged,
      'heartbeat-lost',
    ],
    [
      'a ready room silent for minutes while the pipeline is not current',
      aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:01:00.000Z' }),
      '2026-01-01T00:05:00.000Z',
      notJudged,
      undefined,
    ],
    [
      'a failed room',
      aRoom({ state: 'failed', lastHeartbeatAt: '2026-01-01T00:00:00.000Z' }),
      '2026-01-02T00:00:00.000Z',
      judged,
      undefined,
    ],
  ])('%s → %s', (_name, room, now, heartbeats, expected) => {
    expect(overdue(room, at(now), policy, heartbeats)).toBe(expected);
  });

  it('judges silence as of the verdict, not as of the later instant the room is looked at', () => {
    const room = aRoom({ state: 'ready', lastHeartbeatAt: '2026-01-01T00:01:00.000Z' });
    const verdict = { judge: true, asOf: at('2026-01-01T00:01:09.000Z') };
    expect(overdue(room, at('2026-01-01T00:01:30.000Z'), policy, verdict)).toBeUndefined();
  });
});
