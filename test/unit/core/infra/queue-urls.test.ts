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
    expect(replyQueueName('rk-reply-', 'r1', 1)).toBe('rk-reply-r1');
    expect(assignQueueName('rk-reply-', 'r1')).toBe('rk-reply-r1-assign');
    expect(roomOfQueueName('rk-reply-', 'rk-reply-r1')).toEqual({ roomId: 'r1', epoch: 1 });
    expect(roomOfQueueName('rk-reply-', 'rk-reply-r1-assign')).toEqual({ roomId: 'r1', epoch: 1 });
    expect(roomOfQueueName('rk-reply-', 'rk-reply-')).toBeUndefined();
    expect(roomOfQueueName('rk-reply-', 'rk-reply--assign')).toBeUndefined();
    expect(roomOfQueueName('rk-reply-', 'rk-other-r1')).toBeUndefined();
  });

  it("names a replacement server's reply queue after its epoch, and reads room and epoch back", () => {
    const roomId = '0b7e4a52-2f3c-4d7e-9a1b-5c6d7e8f9a0b';
    // A replacement cannot take its predecessor's name: SQS refuses it for 60 s after a delete.
    expect(replyQueueName('rk-reply-', roomId, 2)).toBe(`rk-reply-${roomId}-e2`);
    expect(replyQueueName('rk-reply-', roomId, 17)).toBe(`rk-reply-${roomId}-e17`);
    expect(roomOfQueueName('rk-reply-', `rk-reply-${roomId}-e2`)).toEqual({ roomId, epoch: 2 });
    expect(roomOfQueueName('rk-reply-', `rk-reply-${roomId}-e17`)).toEqual({ roomId, epoch: 17 });
    expect(roomOfQueueName('rk-reply-', `rk-reply-${roomId}`)).toEqual({ roomId, epoch: 1 });
  });
});
