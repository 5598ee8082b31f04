import type { Message } from '@aws-sdk/client-sqs';
import { messagesToDelete } from '../../../local/sqs-pollers';

const batch: Message[] = [{ MessageId: 'a' }, { MessageId: 'b' }, { MessageId: 'c' }];

describe('messagesToDelete', () => {
  it.each([
    ['a void result deletes all', undefined, ['a', 'b', 'c']],
    ['an empty failure list deletes all', { batchItemFailures: [] }, ['a', 'b', 'c']],
    ['reported failures stay', { batchItemFailures: [{ itemIdentifier: 'b' }] }, ['a', 'c']],
    ['an unknown identifier fails the whole batch', { batchItemFailures: [{ itemIdentifier: 'zzz' }] }, []],
    ['a thrown error fails the whole batch', new Error('x'), []],
  ])('%s', (_name, outcome, expected) => {
    expect(messagesToDelete(batch, outcome).map((m) => m.MessageId)).toEqual(expected);
  });
});
