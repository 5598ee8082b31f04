import { keys, liveRoomShard, liveRoomShards } from '../../../core/infra/keys';
import { createTableInput, tableDefinition } from '../../../core/infra/table';
import { listedRoomFields } from '../../../core/rooms/model';
import { aRoom } from '../../helpers/factories';
import { queueDefinitions, queueUrlVariable } from '../../../core/infra/queues';

describe('createTableInput', () => {
  it('declares every key attribute of the table and its indexes exactly once', () => {
    const input = createTableInput('t');
    const names = input.AttributeDefinitions?.map((a) => a.AttributeName);
    expect(names).toEqual(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk', 'gsi3pk', 'gsi3sk']);
    expect(input.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(
      tableDefinition.globalSecondaryIndexes.map((i) => i.indexName),
    );
  });
});

describe('the matchmaking and listing indexes (gsi1, gsi2)', () => {
  it('never copy the members map, so a join writes them one small item, not the whole session document', () => {
    for (const name of ['gsi1', 'gsi2']) {
      const index = createTableInput('t').GlobalSecondaryIndexes?.find((i) => i.IndexName === name);
      expect(index?.Projection?.ProjectionType).toBe('INCLUDE');
      expect(index?.Projection?.NonKeyAttributes).not.toContain('members');
    }
  });

  it("lists exactly the fields a listing shows (listedRoomFields), within CloudFormation's 20 per index", () => {
    const listing = createTableInput('t').GlobalSecondaryIndexes?.find((i) => i.IndexName === 'gsi2');
    expect(listing?.Projection?.NonKeyAttributes).toEqual([...listedRoomFields]);
    expect(listedRoomFields.length).toBeLessThanOrEqual(20);
  });

  it("streams each write's new image, which the taps read", () => {
    expect(createTableInput('t').StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
  });
});

describe('the sweeper index (gsi3)', () => {
  it('projects keys only, so joins and heartbeats never write it', () => {
    const index = createTableInput('t').GlobalSecondaryIndexes?.find((i) => i.IndexName === 'gsi3');
    expect(index?.Projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
  });

  it('is written for every new room, in one of the shards, keyed by its id', () => {
    const room = aRoom({ roomId: 'room-1' });
    expect(keys.roomIndexes(room)).toMatchObject({ gsi3pk: `SWEEP#${liveRoomShard('room-1')}`, gsi3sk: 'room-1' });
  });

  it('spreads rooms over every shard', () => {
    const used = new Set(Array.from({ length: 400 }, (_, i) => liveRoomShard(`room-${i}`)));
    expect([...used].sort()).toEqual(Array.from({ length: liveRoomShards }, (_, i) => i));
  });
});

describe('ending a room', () => {
  it('removes every index key attribute the table defines, so an ended room is in no index', () => {
    const indexKeys = tableDefinition.globalSecondaryIndexes.flatMap((i) => [i.partitionKey, i.sortKey]);
    expect([...keys.roomIndexAttributes].sort()).toEqual(indexKeys.sort());
  });
});

describe('queue definitions', () => {
  it('names FIFO queues and their dead-letter queues with .fifo', () => {
    for (const q of Object.values(queueDefinitions)) {
      expect(q.name.endsWith('.fifo')).toBe(q.fifo);
      expect(q.deadLetter.name.endsWith('.fifo')).toBe(q.fifo);
    }
  });

  it('derives the environment variable of a queue URL', () => {
    expect(queueUrlVariable('controllerRequests')).toBe('QUEUE_URL_CONTROLLER_REQUESTS');
  });
});
