import { knownHost, patientLocator, playerAddress, readinessOf } from '../../../../core/gameservers/server-address';

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

describe('patientLocator', () => {
  const room = { roomId: 'r', placement: { taskId: 'arn:task/1', host: 'pending', ports: [7777] } };

  it('asks again after each pause until the address is readable, and no more', async () => {
    const answers = [undefined, undefined, '203.0.113.7'];
    const slept: number[] = [];
    const locate = patientLocator(
      () => Promise.resolve(answers.shift()),
      [250, 500, 1_000, 2_000],
      async (ms) => void slept.push(ms),
    );
    await expect(locate(room)).resolves.toBe('203.0.113.7');
    expect(slept).toEqual([250, 500]);
  });

  it('gives up after its last pause (the inited is then handed back to the queue)', async () => {
    let asked = 0;
    const slept: number[] = [];
    const locate = patientLocator(
      () => Promise.resolve(void asked++),
      [250, 500],
      async (ms) => void slept.push(ms),
    );
    await expect(locate(room)).resolves.toBeUndefined();
    expect([asked, slept]).toEqual([3, [250, 500]]);
  });
});
