import * as z from 'zod';
import { changeKinds, type ChangeKind } from '../live/messages';
import type { AttributePath, Change } from './room-expression';

/**
 * What changed in a room, by kind: the room item's `cn` map holds, for each kind, the change
 * number at which it last changed. The room store writes it with every change-numbered write,
 * from the paths the write touches, so no use case names it and none can forget it. A tap for
 * a subscriber that last saw change number N lists every kind changed after N.
 */
export const changeNumbersAttribute = 'cn';

export type ChangeNumbers = Partial<Record<ChangeKind, number>>;

/** The kind a top-level attribute of the room item belongs to; the others (clocks, index keys, ttl) are no kind. */
const kindOfAttribute: Readonly<Record<string, ChangeKind>> = {
  members: 'members',
  players: 'members',
  gone: 'members',
  properties: 'properties',
  host: 'host',
  state: 'state',
  failureReason: 'state',
  placement: 'servers',
  address: 'servers',
  readyAt: 'servers',
  settings: 'servers',
  saved: 'servers',
};

/**
 * The host's liveness clock (`s`) and the unreachable reports of its epoch (`r`) are in no
 * view: a host's every write refreshes `s`, and tapping every subscriber for it would tell
 * them nothing they could read.
 */
const unseenHostFields: ReadonlySet<string> = new Set(['s', 'r']);

/** The kind a write to this path changes, if any. */
export function kindOfPath(path: AttributePath): ChangeKind | undefined {
  const [attribute, field] = path;
  if (attribute === undefined) return undefined;
  if (attribute === 'host' && field !== undefined && unseenHostFields.has(field)) return undefined;
  return Object.hasOwn(kindOfAttribute, attribute) ? kindOfAttribute[attribute] : undefined;
}

/** The kinds a change touches, in `changeKinds` order, each once. */
export function changeKindsOf(change: Change): ChangeKind[] {
  const paths = [
    ...(change.set ?? []).map(([path]) => path),
    ...(change.add ?? []).map(([path]) => path),
    ...(change.remove ?? []),
    ...(change.derive ?? []).map(([path]) => path),
  ];
  const touched = new Set(paths.map(kindOfPath));
  return changeKinds.filter((kind) => touched.has(kind));
}

/**
 * The part of a change-numbered write that records its kinds: each kind's entry becomes the
 * change number the write makes (`changeNumber` before it, plus one). Nothing for no kind.
 */
export function changeNumbersWrite(kinds: readonly ChangeKind[]): Change {
  return { derive: kinds.map((kind) => [[changeNumbersAttribute, kind], ['changeNumber'], 1] as const) };
}

/** A new room: every kind came to be at its first change number. */
export function allChangedAt(changeNumber: number): ChangeNumbers {
  return Object.fromEntries(changeKinds.map((kind) => [kind, changeNumber]));
}

const changeNumbersSchema = z.partialRecord(z.enum(changeKinds), z.number().int().min(0));

/**
 * The item's `cn`, or undefined when it has none (a room stored before kinds were recorded) or
 * it does not parse. Unknown keys are ignored: a later release may record more kinds.
 */
export function changeNumbersOf(value: unknown): ChangeNumbers | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const known = Object.fromEntries(
    Object.entries(value).filter(([kind]) => (changeKinds as readonly string[]).includes(kind)),
  );
  const parsed = changeNumbersSchema.safeParse(known);
  return parsed.success ? parsed.data : undefined;
}

/**
 * The kinds changed after change number `since`, in `changeKinds` order. Without a record of
 * kinds (undefined) every kind may have changed, so every kind is named.
 */
export function changesSince(changeNumbers: ChangeNumbers | undefined, since: number): ChangeKind[] {
  if (!changeNumbers) return [...changeKinds];
  return changeKinds.filter((kind) => (changeNumbers[kind] ?? 0) > since);
}
