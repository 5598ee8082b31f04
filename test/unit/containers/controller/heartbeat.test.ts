import { PlayerLoad, startHeartbeat } from '../../../../containers/controller/heartbeat';

describe('PlayerLoad', () => {
  it('counts keys joined minus keys left, each key once', () => {
    const load = new PlayerLoad();
    load.joined('a');
    load.joined('b');
    load.joined('a');
    load.left('a');
    load.left('never-joined');
    expect(load.players).toBe(1);
  });
});

describe('startHeartbeat', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('beats at once and then every interval, until stopped', async () => {
    let beats = 0;
    const ticker = startHeartbeat(1_000, async () => {
      beats += 1;
    });
    await jest.advanceTimersByTimeAsync(0);
    expect(beats).toBe(1);
    await jest.advanceTimersByTimeAsync(3_000);
    expect(beats).toBe(4);
    ticker.stop();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(beats).toBe(4);
  });

  it('never overlaps beats when a send is slower than the interval', async () => {
    let running = 0;
    let overlapped = false;
    const ticker = startHeartbeat(100, async () => {
      running += 1;
      overlapped ||= running > 1;
      await new Promise((resolve) => setTimeout(resolve, 250));
      running -= 1;
    });
    await jest.advanceTimersByTimeAsync(2_000);
    ticker.stop();
    expect(overlapped).toBe(false);
  });
});
