import { randomUUID } from 'node:crypto';
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../../core/infra/keys';
import { roomConditions as is, memberAsRead } from '../../../core/rooms/room-conditions';
import { compileWrite, holds, type Condition } from '../../../core/rooms/room-expression';
import { startTestPlatform, type TestPlatform } from '../../helpers/platform';

let platform: TestPlatform;
beforeAll(async () => {
  platform = await startTestPlatform();
});
afterAll(async () => {
  await platform.close();
});

const spawning = { state: 'spawning', players: 1, maxPlayers: 2, spawnDeadline: '2026-01-01T00:00:30.000Z' };
const ready = {
  state: 'ready',
  players: 2,
  maxPlayers: 2,
  changeNumber: 5,
  lastHeartbeatAt: '2026-01-01T00:00:10.000Z',
  properties: { joinability: 'closed', custom: {} },
  members: { alice: { s: 0, t: 7, k: 'h1' } },
};
const failed = { state: 'failed', players: 0, maxPlayers: 2, properties: { joinability: 'open' }, members: {} };
const inviteOnly = {
  state: 'ready',
  players: 1,
  maxPlayers: 2,
  properties: { joinability: 'inviteOnly', custom: {} },
  members: { bob: { s: 0, t: 1, e: 10, i: 'alice' } },
};

const cases: [string, Condition][] = [
  ['roomIsLive', is.roomIsLive],
  ['roomIsSpawning', is.roomIsSpawning],
  ['roomIsReady', is.roomIsReady],
  ['spawnDeadlineAhead', is.spawnDeadlineAhead(new Date('2026-01-01T00:00:20.000Z'))],
  ['unchangedSince', is.unchangedSince(5)],
  ['hasFreeSlot', is.hasFreeSlot],
  ['memberAbsent', is.memberAbsent('alice')],
  ['memberUnchanged', is.memberUnchanged('alice', 7)],
  ['keyMatches', is.keyMatches('alice', 'h1')],
  ['memberAsRead', memberAsRead({ account: 'alice', member: { t: 7 }, keyHash: 'h1' })],
  ['serverHeardFrom', is.serverHeardFrom('2026-01-01T00:00:15.000Z')],
  ['joinabilityOpen', is.joinabilityOpen],
  ['joinabilityAdmits (invited, live)', is.joinabilityAdmits({ held: ['bob'], addsNewcomer: false }, 5)],
  ['joinabilityAdmits (invite ran out)', is.joinabilityAdmits({ held: ['bob'], addsNewcomer: false }, 10)],
  ['joinabilityAdmits (not invited)', is.joinabilityAdmits({ held: ['carol'], addsNewcomer: false }, 5)],
  ['joinabilityAdmits (adds a newcomer)', is.joinabilityAdmits({ held: ['bob'], addsNewcomer: true }, 5)],
  ['propertiesStored', is.propertiesStored],
];

/**
 * Each named condition, judged by DynamoDB Local (a conditional UpdateItem of the compiled
 * expression) and by the in-memory predicate, on the same items: the fake's verdict is the
 * table's, including for attributes an item lacks.
 */
describe('the named room conditions', () => {
  it('are judged the same by DynamoDB and by the in-memory predicate', async () => {
    const verdicts: Record<string, { table: boolean[]; memory: boolean[] }> = {};
    for (const fields of [spawning, ready, failed, inviteOnly]) {
      const roomId = randomUUID();
      const item = { ...keys.room(roomId), roomId, ...fields };
      await platform.db.send(new PutCommand({ TableName: platform.tableName, Item: item }));
      for (const [name, condition] of cases) {
        const applied = await platform.db
          .send(
            new UpdateCommand({
              TableName: platform.tableName,
              Key: keys.room(roomId),
              ...compileWrite(condition, { set: [[['probe'], name]] }),
            }),
          )
          .then(
            () => true,
            (error: Error) => (error.name === 'ConditionalCheckFailedException' ? false : Promise.reject(error)),
          );
        const verdict = (verdicts[name] ??= { table: [], memory: [] });
        verdict.table.push(applied);
        verdict.memory.push(holds(condition, item));
      }
    }
    for (const [name, verdict] of Object.entries(verdicts))
      expect({ name, ...verdict }).toEqual({ name, table: verdict.memory, memory: verdict.memory });
    // Every condition is seen both holding and failing, so the comparison means something.
    for (const [name, verdict] of Object.entries(verdicts)) {
      expect({ name, both: new Set(verdict.memory).size }).toEqual({ name, both: 2 });
    }
  });
});

/** What the table says of `condition` on `item` (a conditional UpdateItem of the compiled expression). */
async function tableVerdict(item: Record<string, unknown>, condition: Condition): Promise<boolean> {
  return platform.db
    .send(
      new UpdateCommand({
        TableName: platform.tableName,
        Key: keys.room(String(item.roomId)),
        ...compileWrite(condition, { set: [[['probe'], 1]] }),
      }),
    )
    .then(
      () => true,
      (error: Error) => (error.name === 'ConditionalCheckFailedException' ? false : Promise.reject(error)),
    );
}

describe('the build and settings conditions', () => {
  const settings = {
    mode: 'ranked',
    level: 3,
    rules: { friendlyFire: false, limits: { rounds: 5, time: 1.5 } },
    maps: ['harbor', 'desert'],
    note: null,
  };
  const rooms = [
    { protocol: { h: 'aaaaaaaaaaaaaaaa', b: '2026-01-01T00:00:00Z' }, settings },
    {
      protocol: { h: 'bbbbbbbbbbbbbbbb' },
      settings: { ...settings, rules: { limits: { time: 1.5, rounds: 5 }, friendlyFire: false } },
    },
    {
      protocol: { h: 'bbbbbbbbbbbbbbbb' },
      protocolCheck: false,
      settings: { ...settings, maps: ['desert', 'harbor'] },
    },
    { settings: { ...settings, level: 4, note: 'x', rules: { friendlyFire: false, limits: { rounds: 5 } } } },
  ];
  const conditions: [string, Condition][] = [
    ['protocolAccepts', is.protocolAccepts('aaaaaaaaaaaaaaaa')],
    ['settingsMatch string', is.settingsMatch({ mode: 'ranked' })],
    ['settingsMatch number', is.settingsMatch({ level: 3 })],
    // Maps compare whole and without regard to key order; lists in order.
    ['settingsMatch map', is.settingsMatch({ rules: { friendlyFire: false, limits: { rounds: 5, time: 1.5 } } })],
    ['settingsMatch list', is.settingsMatch({ maps: ['harbor', 'desert'] })],
    ['settingsMatch null', is.settingsMatch({ note: null })],
    ['settingsMatch several', is.settingsMatch({ mode: 'ranked', level: 3, maps: ['harbor', 'desert'] })],
    ['settingsMatch absent key', is.settingsMatch({ missing: 1 })],
    ['settingsMatch none', is.settingsMatch({})],
  ];

  it('are judged the same by DynamoDB and by the in-memory predicate, maps and lists included', async () => {
    const table: Record<string, boolean[]> = {};
    const memory: Record<string, boolean[]> = {};
    for (const fields of rooms) {
      const roomId = randomUUID();
      const item = { ...keys.room(roomId), roomId, state: 'ready', ...fields };
      await platform.db.send(new PutCommand({ TableName: platform.tableName, Item: item }));
      for (const [name, condition] of conditions) {
        (table[name] ??= []).push(await tableVerdict(item, condition));
        (memory[name] ??= []).push(holds(condition, item));
      }
    }
    expect(table).toEqual(memory);
    expect(memory).toEqual({
      protocolAccepts: [true, false, true, true],
      'settingsMatch string': [true, true, true, true],
      'settingsMatch number': [true, true, true, false],
      'settingsMatch map': [true, true, true, false],
      'settingsMatch list': [true, true, false, true],
      'settingsMatch null': [true, true, true, false],
      'settingsMatch several': [true, true, false, false],
      'settingsMatch absent key': [false, false, false, false],
      'settingsMatch none': [true, true, true, true],
    });
  });
});
