import { randomUUID } from 'node:crypto';
import type { SQSEvent } from 'aws-lambda';
import type { ControllerReply, ControllerRequest } from '../../core/protocol/controller-messages';
import { openReply, sealRequest, type SidecarKeys } from '../../core/protocol/sidecar-channel';
import { platform } from '../../lambdas/dependencies';

/**
 * Speaks for rooms' sidecars in tests that drive the real consumer directly: requests are
 * sealed with each room's key, as its sidecar would, and replies are opened with the key of
 * whichever room they were sealed for.
 */
export class SidecarChannelDouble {
  private readonly keysByRoom = new Map<string, SidecarKeys>();

  async keys(roomId: string): Promise<SidecarKeys> {
    let keys = this.keysByRoom.get(roomId);
    if (!keys) {
      keys = await platform().sidecarKeys(roomId);
      this.keysByRoom.set(roomId, keys);
    }
    return keys;
  }

  /** The SQS body the room's real sidecar would send for `message`. */
  async seal(message: ControllerRequest): Promise<string> {
    return JSON.stringify(sealRequest(await this.keys(message.roomId), JSON.stringify(message)));
  }

  /** A reply body opened with a known room's key; throws if no room's sidecar could read it. */
  open(body: string): ControllerReply {
    for (const keys of this.keysByRoom.values()) {
      const text = openReply(keys, body);
      if (text !== undefined) return JSON.parse(text) as ControllerReply;
    }
    throw new Error("A reply no known room's sidecar could read.");
  }
}

/** The event an SQS event source mapping hands the consumer: `bodies[i]` in message group `groups[i]`. */
export function controllerQueueEvent(groups: readonly string[], bodies: readonly string[], receiveCount = 1): SQSEvent {
  return {
    Records: bodies.map((body, i) => ({
      messageId: randomUUID(),
      receiptHandle: 'r',
      body,
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: '0',
        SenderId: 's',
        ApproximateFirstReceiveTimestamp: '0',
        MessageGroupId: groups[i] ?? '',
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn',
      awsRegion: 'us-east-1',
    })),
  };
}
