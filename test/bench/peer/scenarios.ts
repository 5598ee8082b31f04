import { Client, type Room } from '@colyseus/sdk';
import { phase } from '../progress';
import { perSecond, summarize, type LatencySummary } from '../stats';
import { overfillDuring, overfillOf, seatsPerRoom } from './overfill';
import type { PeerDeployment } from './processes';

/**
 * Our scenarios played against the peer through its own SDK (HTTP matchmaking, then a
 * WebSocket seat), shaped exactly like ours: rooms of 100 that the room's creator already
 * sits in, filled one after another; sequential joins; a find-or-create stampede. Every seat
 * stays open until its scenario ends, so a room is as full as the seats say.
 */
export interface PeerHotRoom {
  readonly players: number;
  readonly rooms: number;
  readonly seats: number;
  readonly elapsedMs: number;
  readonly joinsPerSecond: number;
  readonly join: LatencySummary;
  readonly fullAnswers: number;
  readonly errors: number;
  /** Seats beyond each room's capacity, summed: the larger of the two counts below. */
  readonly overfill: number;
  /** Counted by the rooms themselves (their peak clients beyond `maxClients`). */
  readonly serverOverfill: number;
  /** Counted from the seats our clients hold, by room id. */
  readonly clientOverfill: number;
}

export interface PeerJoinLatency {
  readonly joins: number;
  /** Joins per second of join time (room creation and leaving between rooms left out). */
  readonly joinsPerSecond: number;
  readonly join: LatencySummary;
  readonly errors: number;
}

export interface PeerStampede {
  readonly players: number;
  readonly roomSize: number;
  readonly roomsCreated: number;
  readonly idealRooms: number;
  readonly timeToPlaceMs: number;
  readonly placed: number;
  /** Players placed per second, from the first request until the last seat. */
  readonly placedPerSecond: number;
  readonly place: LatencySummary;
  /** The larger of the two counts below. */
  readonly overfill: number;
  readonly serverOverfill: number;
  readonly clientOverfill: number;
  readonly errors: number;
}

const roomType = 'seats';
const roomSize = 100;

/** Colyseus refuses a seat in a full room as a locked room (code 522). */
function isFull(error: unknown): boolean {
  const { code, message } = error as { code?: number; message?: string };
  return code === 522 || /locked|full/i.test(message ?? '');
}

async function leaveAll(seats: readonly Room[]): Promise<void> {
  await Promise.all(seats.map((seat) => seat.leave(true).catch(() => undefined)));
}

function clientsOf(peer: PeerDeployment): Client[] {
  return peer.urls.map((url) => new Client(url));
}

export async function peerHotRoom(peer: PeerDeployment, players: number, roomCount: number): Promise<PeerHotRoom> {
  const clients = clientsOf(peer);
  const seats: Room[] = [];
  const label = `peer ${peer.mode}: hot-room ${players}`;
  const serverBefore = await peer.serverOverfill();
  try {
    const rooms = await phase(`${label}: create rooms`, roomCount, async (progress) => {
      const created: string[] = [];
      for (let r = 0; r < roomCount; r++) {
        const creator = await (clients[r % clients.length] as Client).create(roomType, { maxClients: roomSize });
        seats.push(creator);
        created.push(creator.roomId);
        progress.add();
      }
      return created;
    });
    const winners = new Array<number>(roomCount).fill(0);
    const latencies: number[] = [];
    let current = 0;
    let fullAnswers = 0;
    let errors = 0;
    let lastSeat = Number.NaN;
    let next = 0;
    const started = performance.now();
    await phase(`${label}: joins`, roomCount * (roomSize - 1), async (progress) => {
      const player = async () => {
        const client = clients[next++ % clients.length] as Client;
        while (current < roomCount) {
          const r = current;
          const t = performance.now();
          try {
            seats.push(await client.joinById(rooms[r] as string));
            lastSeat = performance.now();
            latencies.push(lastSeat - t);
            winners[r] = (winners[r] as number) + 1;
            progress.add();
          } catch (error) {
            if (isFull(error)) {
              fullAnswers++;
              if (current === r) current++;
            } else errors++;
            if (errors > 1_000) throw new Error(`${label}: more than 1,000 errors`, { cause: error });
          }
        }
      };
      await Promise.all(Array.from({ length: players }, player));
    });
    const elapsedMs = lastSeat - started;
    const serverOverfill = overfillDuring(serverBefore, await peer.serverOverfill());
    // Each room's creator holds a seat too.
    const clientOverfill = overfillOf(
      winners.map((w) => w + 1),
      roomSize,
    );
    return {
      players,
      rooms: roomCount,
      seats: latencies.length,
      elapsedMs,
      joinsPerSecond: perSecond(latencies.length, elapsedMs),
      join: summarize(latencies),
      fullAnswers,
      errors,
      overfill: Math.max(serverOverfill, clientOverfill),
      serverOverfill,
      clientOverfill,
    };
  } finally {
    await leaveAll(seats);
  }
}

export async function peerJoinLatency(peer: PeerDeployment, joins: number): Promise<PeerJoinLatency> {
  const clients = clientsOf(peer);
  const latencies: number[] = [];
  let errors = 0;
  await phase(`peer ${peer.mode}: sequential joins`, joins, async (progress) => {
    for (let done = 0, r = 0; done < joins; r++) {
      const seats: Room[] = [];
      try {
        const creator = await (clients[r % clients.length] as Client).create(roomType, { maxClients: roomSize });
        seats.push(creator);
        for (let i = 0; i < roomSize - 1 && done < joins; i++, done++) {
          const client = clients[(r + i) % clients.length] as Client;
          const started = performance.now();
          try {
            seats.push(await client.joinById(creator.roomId));
            latencies.push(performance.now() - started);
          } catch {
            errors++;
          }
          progress.add();
        }
      } finally {
        await leaveAll(seats);
      }
    }
  });
  const joinMs = latencies.reduce((sum, ms) => sum + ms, 0);
  return { joins, joinsPerSecond: perSecond(latencies.length, joinMs), join: summarize(latencies), errors };
}

export async function peerStampede(peer: PeerDeployment, players: number, size: number): Promise<PeerStampede> {
  const clients = clientsOf(peer);
  const seats: Room[] = [];
  const times: number[] = [];
  let errors = 0;
  let lastPlaced = Number.NaN;
  const serverBefore = await peer.serverOverfill();
  const started = performance.now();
  try {
    await phase(`peer ${peer.mode}: stampede ${players} players`, players, async (progress) => {
      await Promise.all(
        Array.from({ length: players }, async (_, i) => {
          const mine = performance.now();
          try {
            const seat = await (clients[i % clients.length] as Client).joinOrCreate(roomType, { maxClients: size });
            seats.push(seat);
            lastPlaced = performance.now();
            times.push(lastPlaced - mine);
            progress.add();
          } catch {
            errors++;
          }
        }),
      );
    });
    const seatsByRoom = seatsPerRoom(seats.map((seat) => seat.roomId));
    const serverOverfill = overfillDuring(serverBefore, await peer.serverOverfill());
    const clientOverfill = overfillOf(seatsByRoom.values(), size);
    return {
      players,
      roomSize: size,
      roomsCreated: seatsByRoom.size,
      idealRooms: Math.ceil(players / size),
      timeToPlaceMs: lastPlaced - started,
      placed: times.length,
      placedPerSecond: perSecond(times.length, lastPlaced - started),
      place: summarize(times),
      overfill: Math.max(serverOverfill, clientOverfill),
      serverOverfill,
      clientOverfill,
      errors,
    };
  } finally {
    await leaveAll(seats);
  }
}
