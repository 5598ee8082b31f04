import { GetQueueUrlCommand, QueueDoesNotExist, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { sealControllerReply } from '../gameservers/controller-channel';
import type { ControllerReply } from '../protocol/controller-messages';
import type { SidecarKeys } from '../protocol/sidecar-channel';

export type PlatformCommandMessage = Extract<ControllerReply, { type: 'command' }>;

/**
 * Hands one command to a room's sidecar. Resolves `delivered`, or `gone` when the room has
 * no reply queue any more (its sidecar ended and deleted it); other failures throw.
 */
export type CommandDelivery = (roomId: string, command: PlatformCommandMessage) => Promise<'delivered' | 'gone'>;

/** Reply queue URLs a process remembers (the oldest is forgotten first). */
const maxCachedUrls = 1_000;

/** fauxqs and SQS name a missing queue differently across protocols and SDK versions. */
const isMissingQueue = (error: unknown): boolean =>
  error instanceof QueueDoesNotExist ||
  (error instanceof Error &&
    (error.name === 'QueueDoesNotExist' || error.name === 'AWS.SimpleQueueService.NonExistentQueue'));

/**
 * Over SQS: the room's reply queue is `<prefix><roomId>` (docs/game-server-protocol.md), and
 * what goes on it is sealed with the room's channel key, like the consumer's replies
 * (core/gameservers/controller-channel.ts): only that room's sidecar reads or accepts it.
 */
export function sqsCommandDelivery(
  sqs: SQSClient,
  replyQueuePrefix: string,
  keysFor: (roomId: string) => Promise<SidecarKeys>,
): CommandDelivery {
  // A room's reply queue keeps its URL for the sidecar's life: looked up once per process.
  const urls = new Map<string, string>();
  return async (roomId, command) => {
    try {
      let queueUrl = urls.get(roomId);
      if (!queueUrl) {
        const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: `${replyQueuePrefix}${roomId}` }));
        if (!QueueUrl) return 'gone';
        queueUrl = QueueUrl;
        if (urls.size >= maxCachedUrls) urls.delete(urls.keys().next().value as string);
        urls.set(roomId, queueUrl);
      }
      const body = sealControllerReply(await keysFor(roomId), command);
      await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
      return 'delivered';
    } catch (error) {
      if (isMissingQueue(error)) {
        urls.delete(roomId);
        return 'gone';
      }
      throw error;
    }
  };
}
