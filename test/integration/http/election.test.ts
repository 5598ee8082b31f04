import { shiftedClock } from '../../../core/infra/clock';
import { dynamoRoomStore } from '../../../core/rooms/dynamo-room-store';
import type { RoomStore } from '../../../core/rooms/room-store';
import { configurePlatform } from '../../../lambdas/dependencies';
import { sweep } from '../../../lambdas/schedule/room-sweeper';
import { startTestApi, type TestApi } from '../../helpers/platform';

/**
 * The election of docs/api.md ("Live sessions") over real HTTP on DynamoDB Local. The
 * platform's clock is shifted by the test (no waiting); each client keeps its own skewed clock
 * and decides from it when to claim, so what these tests hold is that the one conditional
 * write decides, whatever the clients believe.
 */
const hostTimeoutMs = 10_000;
let api: TestApi;
let store: RoomStore;
let offsetMs = 0;
const tokens = new Map<string, string>();

async function token(account: string): Promise<string> {
  const known = tokens.get(account) ?? (await api.platform.token(account));
  tokens.set(account, known);
  return known;
}

interface Answer {
  readonly status: number;
  readonly body: { room?: Record<string, any>; error?: { code: string; details?: Record<string, any> } };
}

const as = async (account: string) => {
  const t = await token(account);
  return {
    get: (roomId: string): Promise<Answer> => api.call('GET', `/v1/rooms/${roomId}`, { token: t }),
    claim: (roomId: string, epoch: number): Promise<Answer> =>
      api.call('POST', `/v1/rooms/${roomId}/host`, { token: t, body: { epoch } }),
    patch: (roomId: string, custom: object, epoch?: number): Promise<Answer> =>
      api.call('PATCH', `/v1/rooms/${roomId}`, {
        token: t,
        body: { properties: { custom } },
        ...(epoch === undefined ? {} : { headers: { 'x-host-epoch': String(epoch) } }),
      }),
    me: (roomId: string, custom: object, epoch?: number): Promise<Answer> =>
      api.call('PATCH', `/v1/rooms/${roomId}/members/me`, {
        token: t,
        body: { properties: { custom } },
        ...(epoch === undefined ? {} : { headers: { 'x-host-epoch': String(epoch) } }),
      }),
  };
};

const members = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);

/** A peer-hosted session of `host` (epoch 1) and `others`, all active, from `template`. */
async function session(template: string, host: string, others: readonly string[]): Promise<string> {
  const created = await api.call('POST', '/v1/rooms', { token: await token(host), body: { template } });
  expect(created.status).toBe(201);
  const roomId: string = created.body.room.roomId;
  for (const account of [host, ...others]) {
    const t = await token(account);
    if (account !== host)
      expect((await api.call('POST', `/v1/rooms/${roomId}/join`, { token: t, body: {} })).status).toBe(200);
    const active = await api.call('PATCH', `/v1/rooms/${roomId}/members/me`, { token: t, body: { state: 'active' } });
    expect(active.status).toBe(200);
  }
  return roomId;
}

const hostOf = async (roomId: string) => (await store.read(roomId))?.room.host;

/** A seeded generator, so a failing run can be repeated. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1_664_525) + 1_013_904_223) >>> 0;
    return s / 2 ** 32;
  };
}

interface Claimant {
  readonly account: string;
  /** Its clock minus the platform's (ms). */
  readonly skewMs: number;
  /** When, by its own clock, it believes the host silent long enough for its claim. */
  readonly waitMs: number;
}

/**
 * The host falls silent at the platform instant `silentFrom`; each claimant claims when ITS
 * clock says the host was silent `waitMs`, and again at each step while refused HOST_ALIVE.
 * Claims due at the same step go together, in parallel. Until every claimant has been answered
 * 200 or STALE_EPOCH. Returns every answer with the platform instant it was sent at.
 */
async function claimRace(
  roomId: string,
  epoch: number,
  silentFrom: number,
  claimants: readonly Claimant[],
  stepMs: number,
) {
  const answers: { account: string; at: number; answer: Answer }[] = [];
  let pending = [...claimants];
  // A little past the first claimant's instant: no claim lands exactly on a boundary of the rules.
  let at = silentFrom + Math.min(...claimants.map((c) => c.waitMs - c.skewMs)) + 250;
  while (pending.length > 0) {
    offsetMs = at - Date.now();
    const due = pending.filter((c) => at + c.skewMs - silentFrom >= c.waitMs);
    const answered = await Promise.all(
      due.map(async (c) => ({ c, answer: await (await as(c.account)).claim(roomId, epoch) })),
    );
    for (const { c, answer } of answered) {
      answers.push({ account: c.account, at, answer });
      if (answer.status === 200 || answer.body.error?.code === 'STALE_EPOCH') pending = pending.filter((p) => p !== c);
    }
    at += stepMs;
    if (at - silentFrom > 4 * hostTimeoutMs) throw new Error('the election did not resolve within 4 × hostTimeoutMs');
  }
  return answers;
}

beforeAll(async () => {
  api = await startTestApi({ CREATE_RATE_LIMIT_PER_MINUTE: '10000', JOIN_RATE_LIMIT_PER_MINUTE: '10000' });
  configurePlatform({ clock: shiftedClock(() => offsetMs) });
  store = dynamoRoomStore(api.platform.db, api.platform.tableName);
  const admin = await api.platform.token('ops', ['admin']);
  const timeouts = { reservedMs: 600_000, sessionEmptyMs: null };
  for (const [name, migrateHost] of [
    ['migrating', true],
    ['ending', false],
  ] as const) {
    const put = await api.call('PUT', `/v1/admin/templates/${name}`, {
      token: admin,
      body: { constants: { maxMembers: 16, visibility: 'open', timeouts, migrateHost, hostTimeoutMs } },
    });
    expect(put.status).toBe(200);
  }
  // A template that names no arbiter rules: its sessions have no host, as before arbiters.
  const plain = await api.call('PUT', '/v1/admin/templates/plain', {
    token: admin,
    body: { constants: { maxMembers: 4, visibility: 'open', timeouts } },
  });
  expect(plain.status).toBe(200);
}, 60_000);
afterAll(async () => {
  configurePlatform({ clock: undefined });
  await api.close();
});
beforeEach(() => {
  offsetMs = 0;
});

describe('the election', () => {
  it('shows the host, its epoch, the rules and the preferred successor; a claim while the host is heard is HOST_ALIVE', async () => {
    const roomId = await session('migrating', 'ann', ['bea', 'cal']);
    const read = await store.read(roomId);
    const numbers = ['bea', 'cal'].map((a) => ({ a, n: read!.doc.members[a]!.n! }));
    const next = numbers.sort((x, y) => x.n - y.n)[0]!.a;

    const seen = await (await as('bea')).get(roomId);
    expect(seen.body.room).toMatchObject({
      host: { account: 'ann', epoch: 1, next },
      constants: { migrateHost: true, hostTimeoutMs },
    });
    const early = await (await as(next)).claim(roomId, 1);
    expect(early.status).toBe(409);
    expect(early.body.error).toMatchObject({
      code: 'HOST_ALIVE',
      details: { epoch: 1, retryAfterMs: expect.any(Number) },
    });
    expect(await hostOf(roomId)).toMatchObject({ epoch: 1, account: 'ann' });
  });

  it('10 claimants with clocks skewed ±5 s, 50 times over: exactly one host per epoch, every other claim refused', async () => {
    const accounts = members('racer', 11);
    const roomId = await session('migrating', accounts[0]!, accounts.slice(1));
    const random = seeded(30);
    let raced = 0;
    for (let round = 0; round < 50; round++) {
      const host = (await hostOf(roomId))!;
      const view = (await (await as(accounts.find((a) => a !== host.account)!)).get(roomId)).body.room!;
      const claimants: Claimant[] = accounts
        .filter((a) => a !== host.account)
        .map((account) => ({
          account,
          skewMs: Math.round((random() * 2 - 1) * 5_000),
          // Odd rounds: the successor the view names tries at T, the others at 1.5 T (docs/live.md).
          // Even rounds: every one of them believes it should win, and all try at T.
          waitMs: round % 2 === 1 && account !== view.host.next ? 1.5 * hostTimeoutMs : hostTimeoutMs,
        }));
      const answers = await claimRace(roomId, host.epoch, host.seenAt, claimants, 2_500);

      const won = answers.filter((x) => x.answer.status === 200);
      expect(won).toHaveLength(1);
      const winner = won[0]!;
      if (answers.filter((x) => x.at === winner.at).length >= 3) raced++;
      expect(winner.answer.body.room).toMatchObject({ host: { account: winner.account, epoch: host.epoch + 1 } });
      for (const lost of answers.filter((x) => x !== winner)) {
        expect(lost.answer.status).toBe(409);
        const code = lost.answer.body.error!.code;
        // Before the win: the host is not silent; after it: the epoch moved on.
        if (lost.at < winner.at) expect(code).toBe('HOST_ALIVE');
        if (lost.at > winner.at) expect(code).toBe('STALE_EPOCH');
        if (code === 'STALE_EPOCH') expect(lost.answer.body.error!.details).toMatchObject({ epoch: host.epoch + 1 });
        else expect(code).toBe('HOST_ALIVE');
      }
      // No claim won before the host was silent T by the platform's clock, whatever a claimant's said
      // (with ±5 s of skew, a claimant that meant to wait 1.5 T may claim before the successor).
      expect(winner.at - host.seenAt).toBeGreaterThanOrEqual(hostTimeoutMs);
      expect(await hostOf(roomId)).toMatchObject({ epoch: host.epoch + 1, account: winner.account });
    }
    // The test races: in most rounds three or more claims went out together with the winning one.
    expect(raced).toBeGreaterThanOrEqual(25);
  }, 240_000);

  it('a partitioned former host is refused every arbiter write; its plain writes no longer keep anyone alive', async () => {
    const roomId = await session('migrating', 'dan', ['eve', 'fay']);
    const dan = await as('dan');
    // The host's own writes keep it from being silent, with or without its epoch.
    expect((await dan.patch(roomId, { round: 1 }, 1)).status).toBe(200);
    offsetMs += hostTimeoutMs - 1_000;
    expect((await dan.me(roomId, { ping: 1 })).status).toBe(200);
    offsetMs += hostTimeoutMs - 1_000;
    expect((await (await as('eve')).claim(roomId, 1)).body.error?.code).toBe('HOST_ALIVE');

    // dan is cut off: nothing of it arrives for 1.5 T; a member takes over.
    offsetMs += 1.5 * hostTimeoutMs + 1_000;
    const eveWins = await (await as('eve')).claim(roomId, 1);
    const faysClaim = await (await as('fay')).claim(roomId, 1);
    const winner = eveWins.status === 200 ? 'eve' : 'fay';
    expect([eveWins.status, faysClaim.status].sort()).toEqual([200, 409]);
    const seenAt = (await hostOf(roomId))!.seenAt;

    // dan comes back and keeps writing as the host of epoch 1: refused, every time, nothing written.
    for (const attempt of [1, 2, 3]) {
      const stale = await dan.patch(roomId, { round: 1 + attempt }, 1);
      expect(stale.status).toBe(409);
      expect(stale.body.error).toMatchObject({ code: 'STALE_EPOCH', details: { epoch: 2 } });
      expect((await dan.me(roomId, { attempt }, 1)).body.error?.code).toBe('STALE_EPOCH');
      // Naming the new epoch does not help: dan is not its host.
      expect((await dan.patch(roomId, { round: 9 }, 2)).body.error?.code).toBe('STALE_EPOCH');
      // A claim of the old epoch is stale too.
      expect((await dan.claim(roomId, 1)).body.error?.code).toBe('STALE_EPOCH');
    }
    const room = (await (await as('eve')).get(roomId)).body.room!;
    expect(room.properties.custom).toEqual({ round: 1 });
    // A member's plain write is its own; it is no sign of life of the host.
    offsetMs += 1_000;
    expect((await dan.me(roomId, { back: true })).status).toBe(200);
    expect(await hostOf(roomId)).toMatchObject({ epoch: 2, account: winner, seenAt });
    // The new host's write with its epoch is its sign of life.
    expect((await (await as(winner)).patch(roomId, { round: 2 }, 2)).status).toBe(200);
    expect((await hostOf(roomId))!.seenAt).toBeGreaterThan(seenAt);
  });

  it('the host and its preferred successor fail together: another member is host within 2 × hostTimeoutMs', async () => {
    const accounts = members('pair', 6);
    const roomId = await session('migrating', accounts[0]!, accounts.slice(1));
    const host = (await hostOf(roomId))!;
    const next: string = (await (await as(accounts[1]!)).get(roomId)).body.room!.host.next;
    // The successor is dead too: it never claims. The others claim as the view tells them to.
    const claimants = accounts
      .filter((a) => a !== host.account && a !== next)
      .map((account, i) => ({ account, skewMs: (i % 2 === 0 ? 1 : -1) * 2_000, waitMs: 1.5 * hostTimeoutMs }));
    const answers = await claimRace(roomId, host.epoch, host.seenAt, claimants, 1_000);
    const winner = answers.find((x) => x.answer.status === 200)!;
    expect(winner.account).not.toBe(next);
    expect(winner.at - host.seenAt).toBeLessThanOrEqual(2 * hostTimeoutMs);
    expect(await hostOf(roomId)).toMatchObject({ epoch: host.epoch + 1, account: winner.account });
  });

  it('a host that left counts as silent at once: a member takes over without waiting', async () => {
    const roomId = await session('migrating', 'gus', ['hal', 'ivy']);
    expect((await (await as('hal')).claim(roomId, 1)).body.error?.code).toBe('HOST_ALIVE');
    const left = await api.call('DELETE', `/v1/rooms/${roomId}/members/me`, { token: await token('gus') });
    expect(left.status).toBe(204);
    const won = await (await as('hal')).claim(roomId, 1);
    expect(won.status).toBe(200);
    expect(won.body.room).toMatchObject({ host: { account: 'hal', epoch: 2 } });
    expect((await (await as('ivy')).claim(roomId, 1)).body.error?.code).toBe('STALE_EPOCH');
    // Its claim delivered again (the answer was lost) is answered as won, and writes nothing.
    const again = await (await as('hal')).claim(roomId, 1);
    expect(again.status).toBe(200);
    expect(again.body.room!.changeNumber).toBe(won.body.room!.changeNumber);
  });
});

describe('a template without arbiter rules', () => {
  it('has no host: nothing ends its session for a silent creator, and no member can claim one', async () => {
    const roomId = await session('plain', 'mia', ['ned']);
    expect((await (await as('ned')).get(roomId)).body.room).not.toHaveProperty('host');
    // Far past any host timeout, swept: the session is still there, as its timeouts say.
    offsetMs += 10 * hostTimeoutMs;
    await sweep();
    expect((await (await as('ned')).get(roomId)).body.room).toMatchObject({ state: 'ready', players: 2 });
    const claim = await (await as('ned')).claim(roomId, 0);
    expect([claim.status, claim.body.error?.code]).toEqual([403, 'FORBIDDEN']);
    expect(await hostOf(roomId)).toBeUndefined();
  });
});

describe('migrateHost false', () => {
  it('a claim on a lost host ends the session (404), and members read it closed with failureReason host-lost', async () => {
    const roomId = await session('ending', 'jon', ['kit', 'lea']);
    offsetMs += hostTimeoutMs - 1_000;
    expect((await (await as('kit')).claim(roomId, 1)).body.error?.code).toBe('HOST_ALIVE');
    offsetMs += 2_000;
    const ended = await (await as('kit')).claim(roomId, 1);
    expect(ended.status).toBe(404);
    expect((await (await as('lea')).claim(roomId, 1)).status).toBe(404);
    expect((await store.read(roomId))?.room).toMatchObject({ state: 'closed', failureReason: 'host-lost' });
    expect((await (await as('lea')).get(roomId)).body.room).toMatchObject({
      state: 'closed',
      failureReason: 'host-lost',
    });
  });
});
