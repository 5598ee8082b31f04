import { endPlan, gameExitReason, noticeWindowMs, type EndReason } from '../../../../containers/controller/lifecycle';

describe('endPlan', () => {
  it.each<[EndReason, string, string, number]>([
    ['spawn-timeout', 'terminate', 'spawn-timeout', 1],
    ['inited-refused', 'await-exit', 'inited-refused', 1],
    ['hung', 'kill', 'hung', 1],
    ['crashed', 'none', 'crashed', 1],
    ['exited', 'none', 'exited', 0],
    ['stopped', 'notice-then-terminate', 'exited', 0],
    ['fatal', 'kill', 'crashed', 1],
  ])('%s: stop the game by %s, report %s, exit %i', (reason, stopGame, report, exitCode) => {
    expect(endPlan(reason)).toEqual({ stopGame, report, exitCode });
  });
});

describe('gameExitReason', () => {
  it.each([
    [{ code: 0, signal: null }, 'exited'],
    [{ code: 1, signal: null }, 'crashed'],
    [{ code: null, signal: 'SIGKILL' as const }, 'crashed'],
    [{ code: null, signal: null, startError: 'ENOENT' }, 'crashed'],
  ])('%j → %s', (exit, reason) => {
    expect(gameExitReason(exit)).toBe(reason);
  });
});

describe('noticeWindowMs', () => {
  it.each([
    [3_000, 1_000],
    [1_000, 500],
    [100, 50],
  ])('gives a game with %i ms of grace %i ms to act on the shutdown notice', (grace, window) => {
    expect(noticeWindowMs(grace)).toBe(window);
  });
});
