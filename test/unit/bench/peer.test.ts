import { peerComparisons, type PeerResult } from '../../bench/scenarios/peer';

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
      join: { joins: 10, join: summary(2), errors: 0 },
      stampede: {
        players: 200,
        roomSize: 10,
        roomsCreated: 25,
        idealRooms: 20,
        timeToPlaceMs: 400,
        placed: 200,
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
