/**
 * Over-fill: seats taken beyond a room's capacity, summed over rooms. The peer benchmark
 * counts it twice: from the seats its clients hold (per room id) and server-side, as the
 * rooms themselves saw it; the figure it reports is the larger, so neither side can hide one.
 */
export function overfillOf(seatsPerRoom: Iterable<number>, capacity: number): number {
  let overfill = 0;
  for (const seats of seatsPerRoom) overfill += Math.max(0, seats - capacity);
  return overfill;
}

/** Seats held per room id, from the room id of each seat. */
export function seatsPerRoom(roomIds: Iterable<string>): Map<string, number> {
  const seats = new Map<string, number>();
  for (const id of roomIds) seats.set(id, (seats.get(id) ?? 0) + 1);
  return seats;
}

/** The server-side count is cumulative per process: a scenario's share is after − before. */
export function overfillDuring(before: number, after: number): number {
  return Math.max(0, after - before);
}
