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
    for (const fields of [spawning, ready, failed]) {
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
