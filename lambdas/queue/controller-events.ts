import middy from '@middy/core';
import { ChangeMessageVisibilityBatchCommand, QueueDoesNotExist, SendMessageCommand } from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { openControllerMessage, sealControllerReply } from '../../core/gameservers/controller-channel';
import { handleControllerRequest } from '../../core/controller-events/handle';
import { ServerAddressPendingError, ServerAddressThrottledError } from '../../core/gameservers/errors';
import { jitteredBackoffMs, writeContentionBackoff } from '../../core/infra/clock';
import { classifyDependencyError } from '../../core/infra/dependency-errors';
import { childLogger } from '../../core/infra/logger';
import {
  giveUpOnMessage,
  isLastDelivery,
  isRedelivery,
  type GiveUpDependencies,
} from '../../core/controller-events/poison-messages';
import { queueDefinitions } from '../../core/infra/queues';
import type { ControllerReply, ControllerRequest } from '../../core/protocol/controller-messages';
import { handBackVisibilityS, PipelineReporter } from '../../core/rooms/heartbeat-pipeline';
import { roomBoundsOf } from '../../core/rooms/cost-bounds';
import { isLive } from '../../core/rooms/model';
import { platform, type Platform } from '../dependencies';
import { serverReplacement } from '../replacement';

const log = childLogger('controller-events');
const definition = queueDefinitions.controllerRequests;
/** The redrive policy's count (the CDK stack and the local cloud create the queue from the same definition). */
const maxReceiveCount = definition.deadLetter.maxReceiveCount;
/**
 * Kept back from the invocation's time to hand unfinished messages back with a short
 * visibility and to report on the pipeline. An invocation that runs into its timeout is
 * ended by Lambda and its whole batch comes back only after the queue's visibility timeout
 * (60 s): exactly the hold on a room's group this consumer must never cause.
 */
const handBackReserveMs = 1_500;
/** How long one message failing by a dependency is retried in place: its group waits meanwhile. */
const inPlaceRetryMs = 2_000;

let reporter: PipelineReporter | undefined;

type Attempt =
  | { readonly kind: 'applied'; readonly request?: ControllerRequest }
  | { readonly kind: 'failed'; readonly error: unknown; readonly request?: ControllerRequest };

/** A message handed back to the queue: with a short visibility, or the queue's own (`undefined`). */
interface HandedBack {
  readonly record: SQSRecord;
  readonly visibilityS: number | undefined;
}

/**
 * On a message's last delivery, a failure fails its room instead of blocking the room's
 * group until the message reaches the dead-letter queue. Returns whether it gave up.
 */
async function givenUp(
  record: SQSRecord,
  request: ControllerRequest,
  error: unknown,
  deps: GiveUpDependencies,
): Promise<boolean> {
  if (!isLastDelivery(record.attributes.ApproximateReceiveCount, maxReceiveCount)) return false;
  log.error('controller message failed on its last delivery; failing the room, message to the dead-letter queue', {
    messageId: record.messageId,
    type: request.type,
    error: error as Error,
  });
  try {
    await giveUpOnMessage(request, deps);
  } catch (giveUpError) {
    log.error('could not fail the room of a dead-lettered message', {
      messageId: record.messageId,
      error: giveUpError as Error,
    });
  }
  return true;
}

/** Replies are sealed for the room's sidecar: a reply carries player tokens. */
function replyFor(p: Platform, roomId: string, record: SQSRecord) {
  return async (replyTo: string, message: ControllerReply) => {
    const body = sealControllerReply(await p.sidecarKeys(roomId), message);
    try {
      await p.sqs.send(new SendMessageCommand({ QueueUrl: replyTo, MessageBody: body }));
    } catch (error) {
      if (!(error instanceof QueueDoesNotExist)) throw error;
      // A live sidecar recreates a queue deleted under it (by something else) as soon as its
      // next poll fails: the first delivery is retried, and the redelivery finds the queue.
      // A queue still missing then was deleted by its sidecar as it ended, with this call in
      // flight; retrying further would hold the room's group, its `exited` included, for
      // every remaining delivery. Once the room has ended nobody is left to answer at all.
      const room = await p.rooms.find(roomId);
      if (room && isLive(room.state) && !isRedelivery(record.attributes.ApproximateReceiveCount)) throw error;
      log.info('reply dropped: the sidecar is gone', {
        roomId,
        correlationId: message.type === 'reply' ? message.correlationId : undefined,
      });
    }
  };
}

/** Opens and applies one message once. Never throws: a failure is a result. */
async function applyOnce(p: Platform, record: SQSRecord): Promise<Attempt> {
  let request: ControllerRequest | undefined;
  try {
    const opened = await openControllerMessage(record.body, (roomId) => p.sidecarKeys(roomId));
    if (!opened.ok) {
      // Forged, tampered or malformed: retrying cannot fix it. Dropped with a trace
      // (no key, no MAC), never retried; `rejected` is the field a metric filter counts.
      log.warn('dropping unauthenticated controller message', {
        messageId: record.messageId,
        rejected: opened.reason,
        roomId: opened.roomId,
      });
      return { kind: 'applied' };
    }
    request = opened.request;
    await handleControllerRequest(request, {
      rooms: p.rooms,
      slots: p.costs.slots,
      costBounds: { defaults: roomBoundsOf({}, p.config.costBounds), tell: p.deliverCommand },
      pool: p.pool,
      replaceServer: serverReplacement(p),
      signToken: p.signToken,
      verifyServerToken: p.verifyPlatformToken,
      reply: replyFor(p, request.roomId, record),
      sidecarCredentials: p.sidecarCredentials,
      locateServer: p.locateServer,
      now: p.now,
      commands: p.commands,
      messages: p.roomMessages,
      protocolComponents: p.protocolComponents,
      configurations: p.gameConfigurations,
      deliver: p.deliverCommand,
      log,
    });
    return { kind: 'applied', request };
  } catch (error) {
    return { kind: 'failed', error, request };
  }
}

/**
 * Applies one message, retrying it in place for a moment while it fails only because a
 * dependency is slow, throttled or unreachable (core/infra/dependency-errors.ts): a blip
 * then costs no redelivery. Every handler is idempotent (a retry is a redelivery), and
 * nothing of the group runs meanwhile, so order holds. Heartbeats are never retried: the
 * next one supersedes them; nor is an address lookup ECS or EC2 throttled, whose bucket a
 * retry would only drain further.
 */
async function applyPatiently(p: Platform, record: SQSRecord, stop: Deadline): Promise<Attempt> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    const outcome = await applyOnce(p, record);
    if (outcome.kind === 'applied' || outcome.request?.type === 'heartbeat') return outcome;
    if (!classifyDependencyError(outcome.error) || outcome.error instanceof ServerAddressThrottledError) return outcome;
    const pause = jitteredBackoffMs(attempt, writeContentionBackoff);
    if (Date.now() + pause - started > inPlaceRetryMs || stop.leftMs() < pause) return outcome;
    await p.clock.sleep(pause);
  }
}

interface Deadline {
  /** Resolves when the invocation must stop waiting for its messages. */
  readonly reached: Promise<'deadline'>;
  leftMs(): number;
  clear(): void;
}

function deadlineIn(ms: number): Deadline {
  const at = Date.now() + ms;
  let timer: NodeJS.Timeout | undefined;
  const reached = new Promise<'deadline'>((resolve) => (timer = setTimeout(() => resolve('deadline'), ms)));
  return { reached, leftMs: () => at - Date.now(), clear: () => clearTimeout(timer) };
}

/**
 * Shortens the visibility of the messages handed back, so their group is delivered again in
 * seconds: the record's receipt handle is this delivery's, valid until the message is visible.
 */
async function shortenVisibility(p: Platform, handedBack: readonly HandedBack[]): Promise<void> {
  const entries = handedBack.flatMap(({ record, visibilityS }, i) =>
    visibilityS === undefined
      ? []
      : [{ Id: String(i), ReceiptHandle: record.receiptHandle, VisibilityTimeout: visibilityS }],
  );
  const queueUrl = p.config.queueUrls.controllerRequests;
  if (entries.length === 0) return;
  if (!queueUrl) {
    log.warn('cannot shorten the visibility of handed-back messages: no controller queue URL configured');
    return;
  }
  try {
    const { Failed = [] } = await p.sqs.send(
      new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries.slice(0, 10) }),
      { abortSignal: AbortSignal.timeout(handBackReserveMs / 2) },
    );
    if (Failed.length > 0) log.warn('some handed-back messages keep the queue visibility timeout', { failed: Failed });
  } catch (error) {
    log.warn('could not shorten the visibility of handed-back messages', { error: error as Error });
  }
}

type VisibilityPolicy = Parameters<typeof handBackVisibilityS>[1];

/** What one invocation did with its batch: the pipeline report's inputs and the messages handed back. */
class BatchProgress {
  readonly seen = { applied: 0, disrupted: false, fresh: false };
  readonly handedBack: HandedBack[] = [];

  constructor(private readonly policy: VisibilityPolicy) {}

  /** Hands `records` back with a short visibility (by receive count), or `visibilityS`'s. */
  handBack(records: readonly SQSRecord[], visibilityS?: (r: SQSRecord) => number | undefined): void {
    for (const record of records)
      this.handedBack.push({
        record,
        visibilityS: visibilityS
          ? visibilityS(record)
          : handBackVisibilityS(record.attributes.ApproximateReceiveCount, this.policy),
      });
  }
}

/** The batch's records by message group, each group in the order SQS delivered it. */
function groupsOf(event: SQSEvent): SQSRecord[][] {
  const groups = new Map<string, SQSRecord[]>();
  for (const record of event.Records) {
    const group = record.attributes.MessageGroupId ?? record.messageId;
    groups.set(group, [...(groups.get(group) ?? []), record]);
  }
  return [...groups.values()];
}

/**
 * Applies one group's messages in order until one fails: that one and the rest of the group
 * are handed back, so nothing overtakes it (a failed heartbeat or a given-up message excepted).
 */
async function applyGroup(
  p: Platform,
  records: readonly SQSRecord[],
  stop: Deadline,
  batch: BatchProgress,
  pipeline: PipelineReporter,
): Promise<void> {
  for (const [index, record] of records.entries()) {
    const outcome = await Promise.race([applyPatiently(p, record, stop), stop.reached]);
    if (outcome === 'deadline') {
      // Still running (a hung dependency): its result is not waited for. Applied or not, the
      // message comes back in seconds and its redelivery is answered the same.
      batch.seen.disrupted = true;
      log.warn('controller message still running at the invocation deadline; handed back', {
        messageId: record.messageId,
      });
      batch.handBack(records.slice(index));
      return;
    }
    if (outcome.kind === 'applied') {
      batch.seen.applied++;
      if (outcome.request?.type === 'heartbeat') {
        const lag = pipeline.lagOf(record.attributes.SentTimestamp, p.now());
        if (lag === 'late') batch.seen.disrupted = true;
        if (lag === 'fresh') batch.seen.fresh = true;
      }
      continue;
    }
    if ((await afterFailure(p, record, outcome, batch)) === 'next') continue;
    const pending = outcome.error instanceof ServerAddressPendingError;
    batch.handBack(records.slice(index), pending ? () => undefined : undefined);
    return;
  }
}

/**
 * A message that failed: `next` when the group may go on without it (a heartbeat the next one
 * supersedes, or a message given up on its last delivery), `hold` when it and the rest of its
 * group must wait for its redelivery.
 */
async function afterFailure(
  p: Platform,
  record: SQSRecord,
  { error, request }: Extract<Attempt, { kind: 'failed' }>,
  batch: BatchProgress,
): Promise<'next' | 'hold'> {
  // A throttled address lookup (ECS, EC2) delays no heartbeat: the pipeline is not disrupted.
  if (classifyDependencyError(error) && !(error instanceof ServerAddressThrottledError)) batch.seen.disrupted = true;
  if (request?.type === 'heartbeat') {
    // A newer heartbeat follows within one interval and says the same, fresher. Handing
    // this one back would hold the room's whole group, and with it every heartbeat
    // behind it: a healthy room would look silent.
    log.warn('heartbeat not applied; the next one supersedes it', {
      messageId: record.messageId,
      roomId: request.roomId,
      error: error as Error,
    });
    return 'next';
  }
  const reply = request ? replyFor(p, request.roomId, record) : undefined;
  if (request && reply && (await givenUp(record, request, error, { rooms: p.rooms, reply, now: p.now }))) {
    // Bound for the dead-letter queue (on its next receive, which comes in seconds); the
    // room is failed, so the rest of its group goes on.
    batch.handBack([record]);
    return 'next';
  }
  if (error instanceof ServerAddressPendingError) {
    // Expected while an ECS task's address is not readable yet: no failure of anything.
    // A spawning room has no heartbeats to hold up: the queue's own timeout paces it.
    log.info('inited waits for the game server address; it will be retried', {
      messageId: record.messageId,
      roomId: error.roomId,
    });
    return 'hold';
  }
  if (error instanceof ServerAddressThrottledError) {
    log.warn('inited handed back: ECS or EC2 throttled the address lookup', {
      messageId: record.messageId,
      roomId: error.roomId,
    });
    return 'hold';
  }
  log.error('controller message failed; it will be retried', { messageId: record.messageId, error: error as Error });
  return 'hold';
}

/**
 * Consumes the controller request queue (FIFO, room id = message group). Groups are
 * processed side by side, each in order; once a message of a group fails, the rest of that
 * group is handed back too, so nothing overtakes it. No message holds its room's group for
 * long: a dependency failure is retried in place for a moment, then handed back with a
 * visibility of seconds (`handBackVisibilityS`), and the invocation stops waiting before its
 * timeout, so the heartbeats behind it reach the table soon after a stall ends.
 */
export async function processControllerEvents(
  event: SQSEvent,
  context?: Pick<Context, 'getRemainingTimeInMillis'>,
): Promise<SQSBatchResponse> {
  const p = platform();
  const policy = { heartbeatTimeoutS: p.config.heartbeatTimeoutS, heartbeatIntervalS: p.config.heartbeatIntervalS };
  reporter ??= new PipelineReporter(policy);
  const pipeline = reporter;
  const budgetMs = context?.getRemainingTimeInMillis() ?? (definition.consumerTimeoutS ?? 10) * 1000;
  const stop = deadlineIn(Math.max(0, budgetMs - handBackReserveMs));
  const batch = new BatchProgress(policy);
  await Promise.all(groupsOf(event).map((records) => applyGroup(p, records, stop, batch, pipeline)));
  stop.clear();
  await shortenVisibility(p, batch.handedBack);
  await Promise.race([
    pipeline.report(batch.seen, p.now(), p.sweeperState).catch((error: unknown) => {
      log.warn('could not report on the heartbeat pipeline', { error: error as Error });
    }),
    new Promise((resolve) => setTimeout(resolve, handBackReserveMs / 2).unref()),
  ]);
  return { batchItemFailures: batch.handedBack.map(({ record }) => ({ itemIdentifier: record.messageId })) };
}

export const handler = middy<SQSEvent, SQSBatchResponse>({ timeoutEarlyInMillis: 0 }).handler(
  (event: SQSEvent, context: Context) => processControllerEvents(event, context),
);
