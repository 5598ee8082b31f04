import { knownHost, patientLocator, playerAddress } from '../../../../core/gameservers/server-address';

describe('server address', () => {
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
