import { createHash, randomBytes } from 'node:crypto';
import {
  CreateQueueCommand,
  DeleteMessageBatchCommand,
  DeleteQueueCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import {
  controllerReplySchema,
  controllerRequestSchema,
  forwardedCall,
  gameRequestId,
  sidecarCredentialsSchema,
  type ControllerReply,
  type ControllerRequest,
  type SidecarCredentials,
} from '../../core/protocol/controller-messages';
import { openReply, sealRequest, type SidecarKeys } from '../../core/protocol/sidecar-channel';
import type { GameMethod } from '../../core/protocol/game-methods';
import { rpcErrorCodes, type RpcId } from '../../core/protocol/jsonrpc';
import { isMissingQueue } from '../../core/commands/delivery';
import { abandonDeduplicationId, abandonNotice } from './abandon';
import { Correlations } from './correlations';
import { failure, type Outcome } from './rpc/dispatcher';

/** An outcome, and whether the platform decided it or the controller had to (timeout, no SQS). */
export type ForwardOutcome = Outcome & { readonly decidedBy: 'platform' | 'controller' };

export type PlatformReply = Extract<ControllerReply, { type: 'reply' }>;
export type PlatformCommand = Extract<ControllerReply, { type: 'command' }>;
/** The platform closed the room for a cost bound: the sidecar ends it. */
export type PlatformStop = Extract<ControllerReply, { type: 'stop' }>;
/** A notice for the game (`platformNotices`), relayed as a JSON-RPC notification. */
export type PlatformNoticeMessage = Extract<ControllerReply, { type: 'notice' }>;
type WithoutEnvelope<T> = T extends unknown ? Omit<T, 'roomId' | 'sentAt' | 'epoch'> : never;
/** What the sidecar reports on its own (no answer expected). */
export type PlatformReport = WithoutEnvelope<Extract<ControllerRequest, { type: 'heartbeat' | 'exited' }>>;

export interface BridgeOptions {
  readonly sqs: SQSClient;
  readonly roomId: string;
  /** The room's arbiter epoch this server serves (ROOM_EPOCH), on every request. */
  readonly epoch?: number;
  /** This room's channel keys: requests are MAC'd with them, replies decrypted. */
  readonly keys: SidecarKeys;
  /** The FIFO queue every sidecar sends to (message group = room id). */
  readonly requestQueueUrl: string;
  /** The reply queue of this server's epoch (queue-names.ts `replyQueueName`): created at start, deleted at exit. */
  readonly replyQueueName: string;
  /**
   * A standby server's `${REPLY_QUEUE_PREFIX}${ROOM_ID}-assign`: created and deleted with the
   * reply queue. The answer to the platform's one `assign` goes there, straight to the create
   * that waits for it, instead of through the request queue's consumer.
   */
  readonly assignQueueName?: string;
  /** PLATFORM_REPLY_TIMEOUT_S in ms: how long a forwarded request waits for its answer. */
  readonly replyTimeoutMs: number;
  readonly log: Logger;
  readonly now?: () => Date;
  /** Long-poll wait per receive; 20 s (the SQS maximum) costs least, and stopping aborts it. */
  readonly pollWaitS?: number;
  /** Forwarded requests allowed to wait at once; more are refused rather than queued without bound. */
  readonly maxInFlight?: number;
}

/** 128 random bits: unguessable, so no other room's reply can be made to match. */
const newCorrelationId = (): string => randomBytes(16).toString('base64url');

/**
 * The sidecar's side of SQS. Requests go to the platform's FIFO queue with the room id as
 * message group and the correlation id as deduplication id; answers and commands come back
 * on the sidecar's own reply queue, long-polled until `close()`.
 *
 *   game ─inited─► call() ─SendMessage(rpc, correlationId, replyTo)─► controller-requests.fifo
 *   game ◄─result─ call() ◄─settle(correlationId)◄─ poll() ◄─ reply queue ◄─ platform
 *
 * SQS delivers at least once: an answer whose correlation id was already settled is a
 * duplicate and is dropped; every handled message is deleted.
 *
 * Both directions go through the room's channel (core/protocol/sidecar-channel.ts): every
 * request is a MAC'd envelope, and only what the platform sealed for this room is read
 * from the reply queue — a forged or replayed command never reaches the game. If the reply
 * queue disappears (locally nothing stops another process deleting it), it is created again.
 * A request is MAC'd, not encrypted, so nothing secret goes in one: registration keys go as
 * their hashes, and the request schema refuses to send a clear one.
 */
export class PlatformBridge {
  private readonly waits = new Correlations<string, PlatformReply>();
  /** Game calls still waiting for the platform, by their game request (`gameRequestId`). */
  private readonly inFlight = new Map<string, { readonly call: string; readonly outcome: Promise<ForwardOutcome> }>();
  private readonly stopPolling = new AbortController();
  private polling: Promise<void> | undefined;
  private closed = false;
  private queueUrl: string | undefined;
  private assignQueueUrl: string | undefined;
  private delivered = performance.now();

  constructor(private readonly options: BridgeOptions) {}

  /** When (`performance.now()`) the request queue last took a send; the bridge's creation before any. */
  get lastDelivered(): number {
    return this.delivered;
  }

  /** Creates the reply queue (and a standby server's assign queue); requests can carry it as `replyTo` from then on. */
  async createReplyQueue(): Promise<string> {
    const [queueUrl, assignQueueUrl] = await Promise.all([
      this.createQueue(this.options.replyQueueName),
      this.options.assignQueueName ? this.createQueue(this.options.assignQueueName) : undefined,
    ]);
    this.queueUrl = queueUrl;
    this.assignQueueUrl = assignQueueUrl;
    return queueUrl;
  }

  private async createQueue(name: string): Promise<string> {
    const { QueueUrl } = await this.options.sqs.send(
      new CreateQueueCommand({
        QueueName: name,
        Attributes: { MessageRetentionPeriod: '3600', VisibilityTimeout: '30' },
      }),
    );
    if (!QueueUrl) throw new Error(`SQS returned no URL for ${name}.`);
    return QueueUrl;
  }

  get replyQueueUrl(): string {
    if (!this.queueUrl) throw new Error('The reply queue has not been created.');
    return this.queueUrl;
  }

  /**
   * Forwards one game call and waits for the answer (or the reply timeout). Never throws.
   * `id` is the game's JSON-RPC id: the platform knows the call by it (`gameRequestId`), so
   * the game's retry with the same id is the same request. The same request again while it
   * still waits is not forwarded a second time: it shares the first one's answer, and the game
   * gets that answer twice under its id. The same id with another method or other params is
   * refused with -32600 (an id names one request among those in flight).
   */
  call(method: GameMethod, params: unknown, id?: RpcId): Promise<ForwardOutcome> {
    if (id === undefined) return this.forward(method, params);
    const gameRequest = gameRequestId(id);
    const call = JSON.stringify([method, params]);
    const waiting = this.inFlight.get(gameRequest);
    if (waiting) {
      return waiting.call === call
        ? waiting.outcome
        : Promise.resolve(
            local(rpcErrorCodes.invalidRequest, 'Invalid request: this id names another call still in flight.'),
          );
    }
    const outcome = this.forward(method, params, gameRequest).finally(() => this.inFlight.delete(gameRequest));
    this.inFlight.set(gameRequest, { call, outcome });
    return outcome;
  }

  /** `gameRequest`: absent for a notification, which is its own request (its correlation id). */
  private async forward(method: GameMethod, params: unknown, gameRequest?: string): Promise<ForwardOutcome> {
    if (this.closed || !this.queueUrl) return local(rpcErrorCodes.roomClosed, 'The controller is stopping.');
    if (this.waits.waiting >= (this.options.maxInFlight ?? 64)) {
      return local(rpcErrorCodes.notAllowed, 'Too many requests are waiting for the platform; retry later.');
    }
    const correlationId = newCorrelationId();
    const request = gameRequest ?? correlationId;
    const answer = this.waits.wait(correlationId, this.options.replyTimeoutMs);
    // A hung SendMessage must not hold the game past the reply timeout either. SDK retries
    // reuse the deduplication id, so a retried send is still one request. The game's
    // registration key leaves this process only as its hash (`forwardedCall`).
    const sent = await this.send(
      {
        type: 'rpc',
        correlationId,
        replyTo: this.replyQueueUrl,
        ...forwardedCall(method, params, request),
      },
      correlationId,
      AbortSignal.timeout(this.options.replyTimeoutMs),
    );
    if (!sent) {
      this.waits.cancel(correlationId);
      await answer;
      await this.abandon(method, params, correlationId, request);
      return local(rpcErrorCodes.internalError, 'The platform could not be reached.');
    }
    const settlement = await answer;
    switch (settlement.kind) {
      case 'answered': {
        const { error, result } = settlement.value;
        return error ? { error, decidedBy: 'platform' } : { result: result ?? null, decidedBy: 'platform' };
      }
      case 'timeout':
        this.options.log.warn('platform reply timed out', { method, correlationId });
        await this.abandon(method, params, correlationId, request);
        return local(
          rpcErrorCodes.platformTimeout,
          `The platform did not answer within ${this.options.replyTimeoutMs / 1000} s.`,
        );
      case 'cancelled':
        return local(rpcErrorCodes.roomClosed, 'The controller is stopping.');
    }
  }

  /**
   * Tells the platform the game will never see this call's answer, before the game hears of
   * the timeout: same message group, so the platform handles it after the call and before
   * any retry the game makes. Best effort: if it is lost, the game's retry (same id, so the
   * same game request) still gets the first answer.
   */
  private async abandon(
    method: GameMethod,
    params: unknown,
    correlationId: string,
    gameRequest: string,
  ): Promise<void> {
    const notice = abandonNotice(method, params, correlationId, gameRequest);
    if (!notice) return;
    const timeoutMs = Math.min(5_000, this.options.replyTimeoutMs);
    if (!(await this.send(notice, abandonDeduplicationId(correlationId), AbortSignal.timeout(timeoutMs)))) {
      this.options.log.error('could not tell the platform a call was abandoned', { method, correlationId });
    }
  }

  /**
   * Sends the game's answer to a platform command, once per command: the deduplication id is
   * derived from the command id, so a resend within SQS's five minutes is one message.
   */
  answerCommand(
    commandId: string,
    answer: { result: unknown } | { error: { code: number; message: string } },
    timeoutMs = 5_000,
  ): Promise<boolean> {
    const deduplicationId = `result-${createHash('sha256').update(commandId).digest('base64url')}`;
    return this.send({ type: 'commandResult', commandId, ...answer }, deduplicationId, AbortSignal.timeout(timeoutMs));
  }

  /**
   * Sends the game's answer to `assign` to the assign queue, where the create that handed this
   * standby server its room waits for it. Without an assign queue it goes like any command's.
   */
  answerAssign(
    commandId: string,
    answer: { result: unknown } | { error: { code: number; message: string } },
    timeoutMs = 5_000,
  ): Promise<boolean> {
    if (!this.assignQueueUrl) return this.answerCommand(commandId, answer, timeoutMs);
    return this.send({ type: 'commandResult', commandId, ...answer }, undefined, AbortSignal.timeout(timeoutMs), {
      queueUrl: this.assignQueueUrl,
    });
  }

  /** Forwards one game → owner message. Resolves whether SQS took it within `timeoutMs`. */
  forwardMessage(data: Record<string, unknown>, timeoutMs = 5_000): Promise<boolean> {
    const messageId = newCorrelationId();
    return this.send({ type: 'message', messageId, data }, messageId, AbortSignal.timeout(timeoutMs));
  }

  /** Sends a heartbeat or the exit report. Resolves whether SQS took it within `timeoutMs`. */
  report(message: PlatformReport, timeoutMs = 5_000): Promise<boolean> {
    return this.send(message, newCorrelationId(), AbortSignal.timeout(timeoutMs));
  }

  /** Asks the platform for a fresh scoped AWS session (deployed). `undefined` if none came. */
  async renewCredentials(): Promise<SidecarCredentials | undefined> {
    if (this.closed || !this.queueUrl) return undefined;
    const correlationId = newCorrelationId();
    const answer = this.waits.wait(correlationId, this.options.replyTimeoutMs);
    const sent = await this.send(
      { type: 'credentials', correlationId, replyTo: this.replyQueueUrl },
      correlationId,
      AbortSignal.timeout(this.options.replyTimeoutMs),
    );
    if (!sent) this.waits.cancel(correlationId);
    const settlement = await answer;
    if (settlement.kind !== 'answered' || settlement.value.error) return undefined;
    const credentials = sidecarCredentialsSchema.safeParse(settlement.value.result);
    return credentials.success ? credentials.data : undefined;
  }

  /**
   * Starts long-polling the reply queue; commands go to `onCommand`, not awaited, unless it
   * returns a promise: the batch is then deleted and the queue polled again only once that
   * settles. The controller does so for the warm pool's
   * hand-over alone (`assign`): a create waits for its answer, and the delete and the next
   * poll would compete with it for the CPU and the queue service. A `stop` goes to `onStop`,
   * a notice for the game to `onNotice` (dropped without one).
   */
  consume(
    onCommand: (command: PlatformCommand) => Promise<void> | undefined,
    onStop: (stop: PlatformStop) => void,
    onNotice: (notice: PlatformNoticeMessage) => void = () => undefined,
  ): void {
    this.polling ??= this.poll({ onCommand, onStop, onNotice });
  }

  /** Stops polling, ends every wait, and deletes the reply queue. */
  async close(timeoutMs = 5_000): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stopPolling.abort();
    this.waits.cancelAll();
    await this.polling;
    const queues = [
      { url: this.queueUrl, name: this.options.replyQueueName },
      { url: this.assignQueueUrl, name: this.options.assignQueueName },
    ];
    await Promise.all(
      queues.map(async ({ url, name }) => {
        if (!url) return;
        try {
          await this.options.sqs.send(new DeleteQueueCommand({ QueueUrl: url }), {
            abortSignal: AbortSignal.timeout(timeoutMs),
          });
        } catch (error) {
          this.options.log.error('could not delete a queue of this room', { error, queue: name });
        }
      }),
    );
  }

  /** One MAC'd request: to the FIFO request queue (deduplicated), or to a standard queue of this room's. */
  private async send(
    partial: WithoutEnvelope<ControllerRequest>,
    deduplicationId: string | undefined,
    abortSignal?: AbortSignal,
    to?: { readonly queueUrl: string },
  ): Promise<boolean> {
    const now = this.options.now?.() ?? new Date();
    const message = controllerRequestSchema.safeParse({
      ...partial,
      roomId: this.options.roomId,
      sentAt: now.toISOString(),
      ...(this.options.epoch === undefined ? {} : { epoch: this.options.epoch }),
    });
    if (!message.success) {
      this.options.log.error('refusing to send a malformed platform message', {
        type: partial.type,
        issue: message.error.issues[0]?.message,
      });
      return false;
    }
    try {
      await this.options.sqs.send(
        new SendMessageCommand({
          MessageBody: JSON.stringify(sealRequest(this.options.keys, JSON.stringify(message.data))),
          ...(to
            ? { QueueUrl: to.queueUrl }
            : {
                QueueUrl: this.options.requestQueueUrl,
                MessageGroupId: this.options.roomId,
                MessageDeduplicationId: deduplicationId,
              }),
        }),
        abortSignal ? { abortSignal } : {},
      );
      if (!to) this.delivered = performance.now();
      return true;
    } catch (error) {
      this.options.log.error('could not send to the platform', { error, type: partial.type });
      return false;
    }
  }

  private async poll(handlers: {
    onCommand: (command: PlatformCommand) => Promise<void> | undefined;
    onStop: (stop: PlatformStop) => void;
    onNotice: (notice: PlatformNoticeMessage) => void;
  }): Promise<void> {
    const signal = this.stopPolling.signal;
    while (!signal.aborted) {
      let messages: Message[];
      try {
        const received = await this.options.sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: this.replyQueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: this.options.pollWaitS ?? 20,
          }),
          { abortSignal: signal },
        );
        messages = received.Messages ?? [];
      } catch (error) {
        if (signal.aborted) return;
        if (isMissingQueue(error)) {
          // Deleted under us: answers on their way would be lost. Recreate it under the same
          // name (so the same URL); the platform retries a reply it could not deliver.
          this.options.log.warn('the reply queue disappeared; creating it again');
          await this.createReplyQueue().catch((cause: unknown) =>
            this.options.log.error('could not recreate the reply queue', { error: cause }),
          );
        } else {
          this.options.log.warn('polling the reply queue failed', { error });
        }
        await pause(1_000, signal);
        continue;
      }
      const first: Promise<void>[] = [];
      for (const message of messages)
        this.handle(message, {
          ...handlers,
          onCommand: (command) => {
            const handled = handlers.onCommand(command);
            if (handled) first.push(handled.catch(() => undefined));
          },
        });
      if (first.length > 0) await Promise.all(first);
      await this.remove(messages);
    }
  }

  private handle(
    message: Message,
    {
      onCommand,
      onStop,
      onNotice,
    }: {
      onCommand: (command: PlatformCommand) => void;
      onStop: (stop: PlatformStop) => void;
      onNotice: (notice: PlatformNoticeMessage) => void;
    },
  ): void {
    const text = openReply(this.options.keys, message.Body ?? '');
    if (text === undefined) {
      // Not sealed for this room: forged, tampered, or another room's replayed here.
      this.options.log.warn('dropped a reply queue message not sealed for this room', {
        messageId: message.MessageId,
      });
      return;
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    const parsed = controllerReplySchema.safeParse(body);
    if (!parsed.success) {
      this.options.log.warn('dropped a malformed reply queue message', { messageId: message.MessageId });
      return;
    }
    if (parsed.data.type === 'command') {
      onCommand(parsed.data);
      return;
    }
    if (parsed.data.type === 'stop') {
      onStop(parsed.data);
      return;
    }
    if (parsed.data.type === 'notice') {
      onNotice(parsed.data);
      return;
    }
    const outcome = this.waits.settle(parsed.data.correlationId, parsed.data);
    if (outcome === 'duplicate') {
      this.options.log.info('dropped a repeated reply', { correlationId: parsed.data.correlationId });
    } else if (outcome === 'unknown') {
      this.options.log.warn('dropped a reply nobody waits for (late or foreign)', {
        correlationId: parsed.data.correlationId,
      });
    }
  }

  /** Deletes handled messages from the reply queue. */
  private async remove(messages: readonly Message[]): Promise<void> {
    const entries = messages.flatMap((m, i) =>
      m.ReceiptHandle ? [{ Id: String(i), ReceiptHandle: m.ReceiptHandle }] : [],
    );
    if (entries.length === 0) return;
    try {
      await this.options.sqs.send(new DeleteMessageBatchCommand({ QueueUrl: this.replyQueueUrl, Entries: entries }));
    } catch (error) {
      // A reply is redelivered later, and then recognised as a duplicate.
      this.options.log.warn('could not delete handled messages', { error });
    }
  }
}

const local = (code: number, message: string): ForwardOutcome => ({
  ...failure(code, message),
  decidedBy: 'controller',
});

function pause(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
