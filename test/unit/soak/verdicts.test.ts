import { parentOf } from '../../soak/process-tree';
import {
  bloatVerdict,
  duringFault,
  isExpected,
  judgeMemory,
  recoveryFromAnswers,
  stallVerdict,
  unexpectedOutsideFaults,
  verdictOf,
  type Answer,
} from '../../soak/verdicts';

describe('soak verdicts', () => {
  const samples = (values: number[]) => values.map((rssMb, i) => ({ atS: i * 10, rssMb }));

  it('calls memory flat when the last third stays within 15 % of the first, after the warm-up', () => {
    const flat = judgeMemory(samples([50, 200, 200, 210, 205, 215, 220, 212, 218]), 10);
    expect(flat).toMatchObject({ flat: true, firstMb: 200 });
    const leaking = judgeMemory(samples([200, 200, 210, 220, 240, 260, 280, 300, 320]), 0);
    expect(leaking.flat).toBe(false);
    expect(leaking.growth).toBeCloseTo(300 / 200 - 1, 5);
  });

  it('refuses to call memory flat on fewer than three samples', () => {
    expect(judgeMemory(samples([100, 100]), 0).flat).toBe(false);
  });

  it('expects 2xx, 409 and 429 only', () => {
    expect([200, 201, 204, 409, 429].every((status) => isExpected({ operation: 'join', atMs: 0, status }))).toBe(true);
    expect([0, 400, 401, 404, 500, 503].some((status) => isExpected({ operation: 'join', atMs: 0, status }))).toBe(
      false,
    );
  });

  it('expects a 404 only for a room named by id (it ended and was removed), never for other operations', () => {
    expect(isExpected({ operation: 'join', atMs: 0, status: 404, code: 'NOT_FOUND' })).toBe(true);
    expect(isExpected({ operation: 'find-or-create', atMs: 0, status: 404, code: 'NOT_FOUND' })).toBe(false);
    expect(isExpected({ operation: 'join', atMs: 0, status: 404, code: 'GAME_NOT_FOUND' })).toBe(false);
  });

  it('excuses unexpected answers inside a fault window and its grace, and counts the rest by status and code', () => {
    const windows = [
      { name: 'db', fromMs: 1_000, untilMs: 2_000 },
      { name: 'never back', fromMs: 9_000, untilMs: undefined },
    ];
    const answers = [
      { operation: 'join', atMs: 500, status: 503, code: 'UNAVAILABLE' },
      { operation: 'join', atMs: 1_500, status: 503, code: 'UNAVAILABLE' },
      { operation: 'join', atMs: 2_400, status: 0 },
      { operation: 'create', atMs: 3_000, status: 500, code: 'INTERNAL' },
      { operation: 'join', atMs: 4_000, status: 409, code: 'ROOM_FULL' },
      { operation: 'join', atMs: 50_000, status: 503 },
    ];
    expect(duringFault(answers[2] as (typeof answers)[number], windows, 500)?.name).toBe('db');
    expect(unexpectedOutsideFaults(answers, windows, 500)).toEqual({ '503 UNAVAILABLE': 1, '500 INTERNAL': 1 });
  });

  it('reads the parent pid from /proc stat text whose command holds spaces and parentheses', () => {
    expect(parentOf('4242 (node (a) b) S 17 4242 4242 0 -1')).toBe(17);
  });

  it('recovers from a fault at the first success of an unbroken run, ignoring 409/429, never on a lone success', () => {
    const at = (atMs: number, status: number): Answer => ({ operation: 'join', atMs, status });
    const answers = [at(100, 503), at(110, 200), at(120, 0), at(130, 200), at(140, 409), at(150, 201), at(160, 200)];
    expect(recoveryFromAnswers(answers, 100)).toBe(30);
    expect(recoveryFromAnswers(answers.slice(0, 4), 100)).toBeUndefined();
    expect(recoveryFromAnswers([at(50, 200), at(60, 200), at(70, 200)], 100)).toBeUndefined();
  });
});

describe('requirement verdicts', () => {
  it('reads PASS, FAIL, or NOT JUDGED for a requirement the run could not judge', () => {
    expect(verdictOf({ name: 'a', pass: true, detail: '' })).toBe('PASS');
    expect(verdictOf({ name: 'b', pass: false, detail: '' })).toBe('FAIL');
    expect(verdictOf({ name: 'c', pass: true, detail: '', judged: false })).toBe('NOT JUDGED');
  });
});

describe('bloatVerdict', () => {
  const run = { cycles: 700, accounts: 40, roomState: 'ready', joinAfter: 200 };
  it.each<[string, Parameters<typeof bloatVerdict>[0], boolean]>([
    [
      '409 and 429 only, room ready, a fresh join taken',
      { ...run, answers: [{ operation: 'bloat-join', atMs: 1, status: 409, code: 'ROOM_FULL' }] },
      true,
    ],
    [
      'one 500 among the cycles',
      { ...run, answers: [{ operation: 'bloat-join', atMs: 1, status: 500, code: 'INTERNAL' }] },
      false,
    ],
    ['one request unanswered', { ...run, answers: [{ operation: 'bloat-leave', atMs: 1, status: 0 }] }, false],
    ['the room failed', { ...run, answers: [], roomState: 'failed' }, false],
    ['the fresh join refused', { ...run, answers: [], joinAfter: 503 }, false],
  ])('%s → pass %s', (_name, input, pass) => {
    expect(bloatVerdict(input).pass).toBe(pass);
  });
});

describe('stallVerdict', () => {
  const run = { stallS: 25, rooms: ['a', 'b'], failedRooms: [] as string[], welcomedAfterS: [2.1, 3.4] };
  it.each<[string, Parameters<typeof stallVerdict>[0], boolean]>([
    ['no room failed, every player in within the limit', run, true],
    ['a room failed', { ...run, failedRooms: ['a (failed)'] }, false],
    ['a player never got in', { ...run, welcomedAfterS: [2.1, undefined] }, false],
    ['a player got in too late', { ...run, welcomedAfterS: [2.1, 40] }, false],
    ['no room to test', { ...run, rooms: [], welcomedAfterS: [] }, false],
  ])('%s → pass %s', (_name, input, pass) => {
    expect(stallVerdict(input, 15).pass).toBe(pass);
  });
});
