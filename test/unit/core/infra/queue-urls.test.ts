import { siblingQueueUrl } from '../../../../core/infra/queue-urls';
import { assignQueueName, replyQueueName, roomOfQueueName } from '../../../../core/protocol/queue-names';

describe('queue names and URLs', () => {
  it("derives a sidecar queue's URL beside a known queue's, on AWS and on an emulator host WHATWG URLs refuse", () => {
    expect(
      siblingQueueUrl('https://sqs.eu-west-1.amazonaws.com/111122223333/rk-controller-requests.fifo', 'rk-reply-r1'),
    ).toBe('https://sqs.eu-west-1.amazonaws.com/111122223333/rk-reply-r1');
    expect(siblingQueueUrl('http://sqs.us-east-1.127.0.0.1:4566/000000000000/q.fifo', 'rk-reply-r1-assign')).toBe(
      'http://sqs.us-east-1.127.0.0.1:4566/000000000000/rk-reply-r1-assign',
    );
    expect(() => siblingQueueUrl('https://sqs.eu-west-1.amazonaws.com/111122223333/', 'x')).toThrow(
      'Not an SQS queue URL',
    );
  });

  it('names both queues of a room and reads the room back from either', () => {
    expect(replyQueueName('rk-reply-', 'r1')).toBe('rk-reply-r1');
    expect(assignQueueName('rk-reply-', 'r1')).toBe('rk-reply-r1-assign');
    expect(roomOfQueueName('rk-reply-', 'rk-reply-r1')).toBe('r1');
    expect(roomOfQueueName('rk-reply-', 'rk-reply-r1-assign')).toBe('r1');
    expect(roomOfQueueName('rk-reply-', 'rk-reply-')).toBeUndefined();
    expect(roomOfQueueName('rk-reply-', 'rk-reply--assign')).toBeUndefined();
    expect(roomOfQueueName('rk-reply-', 'rk-other-r1')).toBeUndefined();
  });
});
