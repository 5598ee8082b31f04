import { knownHost, playerAddress, readinessOf } from '../../../../core/gameservers/server-address';

const deadline = '2026-01-01T00:02:00.000Z';
const before = new Date('2026-01-01T00:01:00.000Z');
const after = new Date('2026-01-01T00:02:01.000Z');

describe('server address rule', () => {
  it('is not ready to players while the address is unknown, and says to retry before the deadline', () => {
    const room = { spawnDeadline: deadline, placement: { taskId: 'arn:task/1', host: 'pending', ports: [7777] } };
    expect(readinessOf(room, undefined, before)).toEqual({ ready: false, retry: true });
    expect(readinessOf(room, 'pending', before)).toEqual({ ready: false, retry: true });
    expect(readinessOf(room, '', before)).toEqual({ ready: false, retry: true });
  });

  it('past the spawn deadline an unknown address is no reason to retry: the spawn timed out', () => {
    expect(readinessOf({ spawnDeadline: deadline }, undefined, after)).toEqual({ ready: false, retry: false });
  });

  it('is ready with the located public address (ECS: learnt at inited)', () => {
    const room = { spawnDeadline: deadline, placement: { taskId: 'arn:task/1', host: 'pending', ports: [7777] } };
    expect(readinessOf(room, '203.0.113.7', before)).toEqual({ ready: true, address: '203.0.113.7' });
  });

  it('is ready with the address the spawner already knew (the local fleet: 127.0.0.1)', () => {
    const room = { spawnDeadline: deadline, placement: { taskId: 'local:1', host: '127.0.0.1', ports: [40001] } };
    expect(readinessOf(room, undefined, before)).toEqual({ ready: true, address: '127.0.0.1' });
  });

  it('players are given the address recorded with ready before the placement host', () => {
    expect(playerAddress({ address: '203.0.113.7', placement: { taskId: 't', host: 'pending', ports: [] } })).toBe(
      '203.0.113.7',
    );
    expect(playerAddress({ placement: { taskId: 't', host: 'pending', ports: [] } })).toBeUndefined();
    expect(knownHost('pending')).toBeUndefined();
  });
});
