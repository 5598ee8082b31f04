import { peerComparisons, peerPlan, summarizePeer, type PeerResult } from '../../bench/scenarios/peer';

const summary = (p50: number) => ({ n: 10, p50, p90: p50, p99: p50, mean: p50, max: p50 });

describe('peer comparison', () => {
  const modes: PeerResult['modes'] = [
    {
      mode: 'redis',
      processes: 2,
      hotRoom: [
        {
          players: 64,
          rooms: 2,
          seats: 198,
          elapsedMs: 1000,
          joinsPerSecond: 100,
          join: summary(5),
          fullAnswers: 64,
          errors: 0,
          overfill: 0,
          serverOverfill: 0,
          clientOverfill: 0,
        },
      ],
      join: { joins: 10, joinsPerSecond: 500, join: summary(2), errors: 0 },
      stampede: {
        players: 200,
        roomSize: 10,
        roomsCreated: 25,
        idealRooms: 20,
        timeToPlaceMs: 400,
        placed: 200,
        placedPerSecond: 500,
        place: summary(100),
        overfill: 2,
        serverOverfill: 2,
        clientOverfill: 0,
        errors: 0,
      },
    },
  ];

  it('divides our figures by theirs, for each figure both sides measured', () => {
    const rows = peerComparisons({
      scenario: 'peer',
      modes,
      ours: {
        hotRoomJoinsPerSecond: { 64: 250, 200: 300 },
        joinP50Ms: 4,
        stampede: {
          players: 200,
          roomSize: 10,
          roomsCreated: 20,
          idealRooms: 20,
          timeToPlaceMs: 2000,
          overfill: 0,
          placed: 200,
        },
      },
    });
    expect(rows.map((r) => [r.scenario, r.ratio])).toEqual([
      ['vs Colyseus on Redis (2 processes): hot room, 64 players', 2.5],
      ['vs Colyseus on Redis (2 processes): sequential join', 2],
      ['vs Colyseus on Redis (2 processes): stampede rooms created', 0.8],
      ['vs Colyseus on Redis (2 processes): stampede over-fill', 0],
      ['vs Colyseus on Redis (2 processes): stampede time to place', 5],
    ]);
  });

  it('compares nothing it did not measure on our side, and no stampedes of different sizes', () => {
    const rows = peerComparisons({
      scenario: 'peer',
      modes,
      ours: {
        stampede: {
          players: 1000,
          roomSize: 10,
          roomsCreated: 100,
          idealRooms: 100,
          timeToPlaceMs: 1,
          overfill: 0,
          placed: 1000,
        },
      },
    });
    expect(rows).toEqual([]);
  });
});

describe('peer charts', () => {
  it('draws Roomkeeper against each peer mode, and no stampede bar for a stampede of another size', () => {
    const peerStampede = (players: number) => ({
      players,
      roomSize: 10,
      roomsCreated: 30,
      idealRooms: players / 10,
      timeToPlaceMs: 400,
      placed: players,
      placedPerSecond: 500,
      place: summary(100),
      overfill: 0,
      serverOverfill: 0,
      clientOverfill: 0,
      errors: 0,
    });
    const mode = (m: 'redis' | 'memory', players: number): PeerResult['modes'][number] => ({
      mode: m,
      processes: m === 'redis' ? 2 : 1,
      hotRoom: [],
      join: { joins: 10, joinsPerSecond: 500, join: summary(2), errors: 0 },
      stampede: peerStampede(players),
    });
    const { charts } = summarizePeer({
      scenario: 'peer',
      modes: [mode('redis', 200), mode('memory', 1000)],
      ours: { joinP50Ms: 4, stampede: { ...peerStampede(200), roomsCreated: 20 } },
    });
    const rooms = charts.find((c) => c.id === 'peer-stampede-rooms');
    expect(rooms?.marker).toEqual({ label: 'ideal', value: 20 });
    expect(rooms?.bars.map((b) => [b.series, b.value])).toEqual([
      ['roomkeeper', 20],
      ['peer', 30],
      ['peer', Number.NaN],
    ]);
    expect(charts.find((c) => c.id === 'peer-join')?.bars.map((b) => b.series)).toEqual(['roomkeeper', 'peer', 'peer']);
  });
});

describe('peer plan', () => {
  it('runs Colyseus on Redis and in memory where redis-server is installed', () => {
    expect(peerPlan(true)).toEqual({
      run: [
        ['redis', 2],
        ['memory', 1],
      ],
      skipped: [],
    });
  });

  it('skips only Colyseus on Redis without redis-server, saying why, instead of stopping the bench', () => {
    const plan = peerPlan(false);
    expect(plan.run).toEqual([['memory', 1]]);
    expect(plan.skipped).toEqual([
      { mode: 'redis', processes: 2, reason: expect.stringMatching(/redis-server is not installed/) },
    ]);
  });

  it('reports a skipped deployment as not measured, in the printed lines and the headline rows', () => {
    const result: PeerResult = {
      scenario: 'peer',
      modes: [],
      skipped: peerPlan(false).skipped,
      ours: { joinP50Ms: 4 },
    };
    const summary = summarizePeer(result);
    expect(summary.lines).toContain(
      '  Colyseus on Redis (2 processes): not measured: redis-server is not installed (apt-get install redis-server)',
    );
    expect(summary.rows).toEqual([
      {
        scenario: 'vs Colyseus on Redis (2 processes)',
        figure: '—',
        baseline: 'not measured: redis-server is not installed (apt-get install redis-server)',
        ratio: Number.NaN,
        reading: 'not measured on this machine',
      },
    ]);
  });
});
