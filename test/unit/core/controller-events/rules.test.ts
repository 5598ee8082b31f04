import { endsCleanly, initedVerdict, readinessOf, refusesStandby } from '../../../../core/controller-events/rules';
import { rpcErrorCodes } from '../../../../core/protocol/jsonrpc';
import { aRoom } from '../../../helpers/factories';

const deadline = '2026-01-01T00:02:00.000Z';
const before = new Date('2026-01-01T00:01:00.000Z');
const after = new Date('2026-01-01T00:02:01.000Z');

describe('readinessOf: the address rule of inited', () => {
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
});

describe('initedVerdict', () => {
  const request = { correlationId: 'c-1', settings: { map: 'dock' } };

  it('is ready when the write applied, or when this very request applied it before (a redelivery)', () => {
    const room = aRoom({ state: 'ready', initedBy: 'c-1', settings: { map: 'other' } });
    expect(initedVerdict({ applied: true, room }, request)).toEqual({ kind: 'ready' });
    expect(initedVerdict({ applied: false, room }, request)).toEqual({ kind: 'ready' });
  });

  it.each([
    ['the same settings', { map: 'dock' }, { result: { status: 'OK' } }],
    ['other settings', { map: 'other' }, { error: { code: rpcErrorCodes.notAllowed, message: expect.any(String) } }],
  ])('answers a second inited of a ready room with %s as it asks', (_, settings, outcome) => {
    const room = aRoom({ state: 'ready', initedBy: 'c-0', settings });
    expect(initedVerdict({ applied: false, room }, request)).toEqual({ kind: 'answer', outcome });
  });

  it('a room still spawning that the write refused is late: the spawn deadline passed first', () => {
    expect(initedVerdict({ applied: false, room: aRoom({ state: 'spawning' }) }, request)).toEqual({ kind: 'late' });
  });

  it.each([
    ['a failed room', { applied: false, room: aRoom({ state: 'failed' }) } as const, 'The room is failed.'],
    ['a missing room', { applied: false } as const, 'Unknown room.'],
  ])('refuses an inited for %s', (_, change, message) => {
    expect(initedVerdict(change, request)).toEqual({
      kind: 'answer',
      outcome: { error: { code: rpcErrorCodes.roomClosed, message } },
    });
  });
});

describe('refusesStandby and endsCleanly', () => {
  it('refuses a spawning standby server whose inited did not accept standby, and nothing else', () => {
    expect(refusesStandby(aRoom({ standby: true, state: 'spawning' }), undefined)).toBe(true);
    expect(refusesStandby(aRoom({ standby: true, state: 'spawning' }), true)).toBe(false);
    expect(refusesStandby(aRoom({ standby: true, state: 'ready' }), undefined)).toBe(false);
    expect(refusesStandby(aRoom({ state: 'spawning' }), undefined)).toBe(false);
  });

  it('only an exit the game chose ends its room cleanly', () => {
    expect(endsCleanly('exited')).toBe(true);
    expect(endsCleanly('crashed')).toBe(false);
  });
});
