import {
  endPlan,
  gameExitReason,
  noticeGraceMs,
  noticeWindowMs,
  type EndReason,
} from '../../../../containers/controller/lifecycle';

describe('endPlan', () => {
  it.each<[EndReason, string, string, number]>([
    ['spawn-timeout', 'terminate', 'spawn-timeout', 1],
    ['inited-refused', 'await-exit', 'inited-refused', 1],
    ['hung', 'kill', 'hung', 1],
    ['crashed', 'none', 'crashed', 1],
    ['exited', 'none', 'exited', 0],
    ['stopped', 'notice-then-terminate', 'exited', 0],
    ['lifetime', 'notice-then-terminate', 'exited', 0],
    ['empty', 'notice-then-terminate', 'exited', 0],
    ['unwatched', 'notice-then-terminate', 'exited', 1],
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

describe('noticeGraceMs', () => {
  it('gives a game the sidecar signals the notice window, and one it cannot signal (ECS) the whole grace', () => {
    expect(noticeGraceMs(3_000, true)).toBe(1_000);
    expect(noticeGraceMs(3_000, false)).toBe(3_000);
  });
});
