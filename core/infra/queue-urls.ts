import { GetQueueUrlCommand, type SQSClient } from '@aws-sdk/client-sqs';

/** Queue URLs a process remembers when it has to look them up (the oldest is forgotten first). */
const maxCachedUrls = 1_000;

/**
 * The URL of queue `name` in the same account and region as the queue at `queueUrl`: SQS
 * URLs are `<endpoint>/<account>/<name>`, so it is the sibling's with its last segment
 * replaced. No lookup: a create's path to a sidecar's queue costs no round trip for it.
 */
export function siblingQueueUrl(queueUrl: string, name: string): string {
  // String work, not `new URL`: emulators answer hosts like `sqs.us-east-1.127.0.0.1` that WHATWG URLs refuse.
  const last = queueUrl.lastIndexOf('/');
  if (last < 0 || last === queueUrl.length - 1) throw new Error(`Not an SQS queue URL: ${queueUrl}`);
  return `${queueUrl.slice(0, last + 1)}${encodeURIComponent(name)}`;
}

/**
 * Resolves queue names to URLs: beside `sibling` (a queue URL of the deployment) when it is
 * known, else with GetQueueUrl, remembered for the queue's life.
 */
export function queueUrlResolver(sqs: SQSClient, sibling?: string): (name: string) => Promise<string> {
  if (sibling) return async (name) => siblingQueueUrl(sibling, name);
  const urls = new Map<string, string>();
  return async (name) => {
    const known = urls.get(name);
    if (known) return known;
    const { QueueUrl } = await sqs.send(new GetQueueUrlCommand({ QueueName: name }));
    if (!QueueUrl) throw new Error(`SQS returned no URL for ${name}.`);
    if (urls.size >= maxCachedUrls) urls.delete(urls.keys().next().value as string);
    urls.set(name, QueueUrl);
    return QueueUrl;
  };
}
