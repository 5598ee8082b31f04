import { randomInt } from 'node:crypto';
import { generateRegistrationKey, hashRegistrationKey } from '../reservations/keys';
import type { Member, Reservation } from '../reservations/model';
import type { MemberStore } from '../reservations/store';
import { RoomNotJoinableError, RoomFullError } from './join-errors';
import { heartbeatCutoff, isJoinable } from './liveness';
import type { Room } from './model';
import type { RoomStore } from './store';

export interface JoinRoomCommand {
  readonly roomId: string;
  readonly account: string;
  readonly scopes: readonly string[];
}

export interface JoinRoomDependencies {
  readonly rooms: RoomStore;
  readonly members: MemberStore;
  readonly now: () => Date;
  readonly sleep: (ms: number) => Promise<void>;
  /** When to stop waiting for a spawning room and answer with the reservation anyway. */
  readonly answerBy: Date;
  /** A ready room not heard from for this long takes no joins (its server is presumed dead). */
  readonly heartbeatTimeoutS: number;
}

export interface JoinRoomResult {
  readonly room: Room;
  readonly reservation: Reservation;
  /** The room was still spawning when the answer was due (202). */
  readonly spawning: boolean;
}

/** Contention (transaction conflicts) is retried here, a few times with jitter, and nowhere else. */
const maxAttempts = 8;

/** Full jitter: a random pause up to an exponentially growing cap. */
function jitteredBackoff(attempt: number): number {
  return randomInt(1, 5 * 2 ** attempt + 2);
}

/**
 * Puts a player into a named room:
 *
 *   claim a slot (one transaction) ─ Claimed ───────────► reservation (new key)
 *        │                          ├ AlreadyMember ────► same slot, fresh key (idempotent)
 *        │                          ├ Full ─► reclaim expired reservations ─► claim again, else ROOM_FULL
 *        │                          ├ NotJoinable ──────► NOT_JOINABLE (closed, failed, or silent)
 *        │                          └ Contention ───────► retry with jitter
 *   spawning room? wait for `inited` until `answerBy` (failed meanwhile → NOT_JOINABLE)
 */
export async function joinRoom(command: JoinRoomCommand, deps: JoinRoomDependencies): Promise<JoinRoomResult> {
  const room = await deps.rooms.get(command.roomId);
  if (room.state !== 'spawning' && room.state !== 'ready')
    throw new RoomNotJoinableError(room.roomId, `the room is ${room.state}`);
  if (!isJoinable(room, deps.now(), deps.heartbeatTimeoutS)) throw silentRoom(room.roomId, deps.heartbeatTimeoutS);
  const key = generateRegistrationKey();
  const keyHash = hashRegistrationKey(key);
  let expiresAt: string;
  let reclaimed = false;
  for (let attempt = 0; ; attempt++) {
    const now = deps.now();
    expiresAt = reservationExpiry(room, now);
    const member: Member = {
      roomId: room.roomId,
      account: command.account,
      state: 'reserved',
      keyHash,
      scopes: command.scopes,
      expiresAt,
      createdAt: now.toISOString(),
    };
    // The heartbeat is checked again inside the claim: a server that died since the read gets no slot.
    const outcome = await deps.members.claim(member, { heartbeatSince: heartbeatCutoff(now, deps.heartbeatTimeoutS) });
    if (outcome.state === 'Claimed') break;
    if (outcome.state === 'NotJoinable') throw new RoomNotJoinableError(room.roomId, 'the room is no longer open');
    if (outcome.state === 'Silent') throw silentRoom(room.roomId, deps.heartbeatTimeoutS);
    if (outcome.state === 'AlreadyMember') {
      const existing = outcome.member;
      if ((await deps.members.reissueKey(existing, keyHash, now)) === 'Reissued') {
        expiresAt = existing.expiresAt ?? expiresAt;
        break;
      }
      // The old reservation expired meanwhile: reclaim it and claim afresh.
      await deps.members.reclaimExpired(room.roomId, now);
      continue;
    }
    if (outcome.state === 'Full') {
      if (reclaimed) throw new RoomFullError(room.roomId);
      reclaimed = true;
      // Claim again even if another joiner freed the expired slots first: they are free all the same.
      await deps.members.reclaimExpired(room.roomId, now);
      continue;
    }
    if (attempt + 1 >= maxAttempts) throw new RoomFullError(room.roomId);
    await deps.sleep(jitteredBackoff(attempt));
  }
  const current = await waitWhileSpawning(room.roomId, deps);
  if (current.state !== 'spawning' && current.state !== 'ready') {
    throw new RoomNotJoinableError(room.roomId, `the room is ${current.state}`);
  }
  const placement = current.placement;
  return {
    room: current,
    spawning: current.state === 'spawning',
    reservation: { key, host: placement?.host ?? 'pending', ports: placement?.ports ?? [], expiresAt },
  };
}

function silentRoom(roomId: string, heartbeatTimeoutS: number): RoomNotJoinableError {
  return new RoomNotJoinableError(roomId, `its game server has not been heard from for ${heartbeatTimeoutS} s`);
}

/**
 * A reservation lasts the configuration's reservation timeout from now, or, in a room
 * still spawning, from its spawn deadline: the player cannot connect before the server is up.
 */
export function reservationExpiry(room: Room, now: Date): string {
  const from = room.state === 'spawning' ? Math.max(now.getTime(), Date.parse(room.spawnDeadline)) : now.getTime();
  return new Date(from + room.reservationTimeoutS * 1000).toISOString();
}

async function waitWhileSpawning(roomId: string, deps: JoinRoomDependencies): Promise<Room> {
  let pause = 10;
  for (;;) {
    const room = await deps.rooms.get(roomId);
    const now = deps.now();
    if (room.state !== 'spawning' || now.getTime() >= deps.answerBy.getTime()) return room;
    await deps.sleep(pause);
    pause = Math.min(pause * 2, 100);
  }
}
