import {
  changeKindsOf,
  changeNumbersOf,
  changeNumbersWrite,
  changesSince,
  kindOfPath,
} from '../../../../core/rooms/change-kinds';
import { completeWrite } from '../../../../core/rooms/rooms';
import { compileWrite } from '../../../../core/rooms/room-expression';

describe('change kinds', () => {
  it.each([
    [['members', 'alice', 's'], 'members'],
    [['players'], 'members'],
    [['gone', 'h1'], 'members'],
    [['properties', 'custom'], 'properties'],
    [['host'], 'host'],
    [['host', 'e'], 'host'],
    [['host', 's'], undefined],
    [['host', 'r', 'bob'], undefined],
    [['state'], 'state'],
    [['failureReason'], 'state'],
    [['placement'], 'servers'],
    [['address'], 'servers'],
    [['readyAt'], 'servers'],
    [['settings'], 'servers'],
    [['saved'], 'servers'],
    [['lastHeartbeatAt'], undefined],
    [['updatedAt'], undefined],
    [['gsi1pk'], undefined],
    [['constructor'], undefined],
  ])('maps a write to %j to %s', (path, kind) => {
    expect(kindOfPath(path)).toBe(kind);
  });

  it('names each kind a change touches once, in the order of the kinds, through sets, adds and removes', () => {
    const change = {
      set: [
        [['state'], 'ready'],
        [['members', 'a', 's'], 2],
        [['members', 'b', 's'], 2],
      ] as const,
      add: [[['players'], 1]] as const,
      remove: [['placement']],
    };
    expect(changeKindsOf(change)).toEqual(['members', 'state', 'servers']);
  });

  it('writes each kind at the change number the write makes, and nothing for a quiet write', () => {
    const at = new Date('2026-01-01T00:00:00.000Z');
    const { change } = completeWrite({ change: { set: [[['properties', 'x'], 1]] }, now: at }, 60);
    expect(compileWrite({ kind: 'exists', path: ['pk'] }, change).UpdateExpression).toMatch(
      /#n\d+\.#n\d+ = #n\d+ \+ :v\d+/,
    );
    expect(change.derive).toEqual(changeNumbersWrite(['properties']).derive);
    expect(
      completeWrite({ change: { set: [[['lastHeartbeatAt'], 'x']] }, now: at, quiet: true }, 60).change.derive,
    ).toEqual([]);
  });

  it('lists the kinds changed after a change number; without a record, every kind', () => {
    const cn = { members: 4, properties: 2, host: 1, state: 5, servers: 3 };
    expect(changesSince(cn, 3)).toEqual(['members', 'state']);
    expect(changesSince(cn, 5)).toEqual([]);
    expect(changesSince(undefined, 9)).toEqual(['members', 'properties', 'host', 'state', 'servers']);
  });

  it('reads a stored record, ignoring kinds it does not know and refusing what is no record', () => {
    expect(changeNumbersOf({ members: 3, later: 9 })).toEqual({ members: 3 });
    expect(changeNumbersOf({ members: 'x' })).toBeUndefined();
    expect(changeNumbersOf(undefined)).toBeUndefined();
    expect(changeNumbersOf([1])).toBeUndefined();
  });
});
