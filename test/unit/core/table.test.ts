import { createTableInput, tableDefinition } from '../../../core/infra/table';
import { queueDefinitions, queueUrlVariable } from '../../../core/infra/queues';

describe('createTableInput', () => {
  it('declares every key attribute of the table and its indexes exactly once', () => {
    const input = createTableInput('t');
    const names = input.AttributeDefinitions?.map((a) => a.AttributeName);
    expect(names).toEqual(['pk', 'sk', 'gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk']);
    expect(input.GlobalSecondaryIndexes?.map((i) => i.IndexName)).toEqual(
      tableDefinition.globalSecondaryIndexes.map((i) => i.indexName),
    );
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
