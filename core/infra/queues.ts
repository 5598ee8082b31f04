import * as z from 'zod';
import type { FunctionNeed } from './function-needs';

/**
 * Every SQS queue of the platform, described once. The CDK stack creates them from this
 * list, the local cloud creates them in the emulator from the same list, and the local
 * pollers attach the same consumers an event source mapping does in AWS.
 */
export interface QueueDefinition {
  /** Logical id; also the environment variable suffix that carries the queue URL. */
  readonly id: string;
  /** Queue name without the stage prefix; FIFO names end in `.fifo`. */
  readonly name: string;
  readonly fifo: boolean;
  /**
   * At least `minVisibilityTimeoutS(consumer timeout)`: a batch must not reappear while its
   * consumer may still be running it, nor while Lambda retries a throttled invocation.
   */
  readonly visibilityTimeoutS: number;
  readonly deadLetter: { readonly name: string; readonly maxReceiveCount: number };
  /** Records per consumer invocation (event source mapping batch size). */
  readonly batchSize: number;
  /** Module (from the repository root) whose `handler` consumes the queue. */
  readonly consumer: string;
  /** The consumer function's timeout. @default defaultConsumerTimeoutS */
  readonly consumerTimeoutS?: number;
  /**
   * The most invocations its event source mapping runs at once (`ScalingConfig.MaximumConcurrency`,
   * 2–1,000; on a FIFO queue the number of active message groups caps it too). A cap that
   * reserves nothing: the consumer still draws from the account's unreserved executions, so
   * the stack deploys in an account of any concurrency quota. Absent: no cap.
   */
  readonly maxConcurrency?: number;
  /** What the consumer needs besides its table (core/infra/function-needs.ts). */
  readonly needs?: readonly FunctionNeed[];
}

export const queueDefinitions = {
  /**
   * Game → platform JSON-RPC requests from every controller sidecar. FIFO with the room id
   * as message group, so one room's `inited`/`joined`/`left` are applied in order.
   */
  controllerRequests: {
    id: 'controllerRequests',
    name: 'controller-requests.fifo',
    fifo: true,
    // 6 × the consumer's 10 s (minVisibilityTimeoutS).
    visibilityTimeoutS: 60,
    // A handed-back message comes back within seconds (lambdas/queue/controller-events.ts), so
    // ten deliveries span about a minute of a dependency failing every attempt: a stall of
    // half a minute never dead-letters a room's `joined`.
    deadLetter: { name: 'controller-requests-dlq.fifo', maxReceiveCount: 10 },
    batchSize: 10,
    consumer: 'lambdas/queue/controller-events.ts',
    consumerTimeoutS: 10,
    // A backlog here (a stalled dependency, a burst of `inited`) must not take every
    // execution of the account from the API's room creations, which hold one for up to ~25 s
    // each (createWaitS). 20 invocations × batches of 10 answer thousands of messages a second
    // (a batch takes tens of milliseconds). A stack prop (`consumerMaxConcurrency`) raises it.
    maxConcurrency: 20,
    // Checks and seals the sidecar channel (keyed by the signing key), mints joined-player
    // tokens, renews sidecar sessions, tells a room's sidecar to stop when a heartbeat finds it
    // past a cost bound, and starts a replacement server for a room that outlives its own
    // (core/rooms/server-replacement.ts).
    needs: ['signTokens', 'sidecarCredentials', 'sendCommands', 'spawn'],
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueId = keyof typeof queueDefinitions;

/** Lambda's bounds of an SQS event source mapping's `MaximumConcurrency`. */
export const eventSourceMaxConcurrency = { min: 2, max: 1_000 } as const;

/** An event source mapping's concurrency cap: an integer Lambda accepts. */
export const maxConcurrencySchema = z
  .number()
  .int()
  .min(eventSourceMaxConcurrency.min)
  .max(eventSourceMaxConcurrency.max);

/** The consumer timeout of a queue definition that names none (ProjectFunction's default). */
export const defaultConsumerTimeoutS = 10;

/**
 * AWS's guidance for a queue feeding Lambda: a visibility timeout of at least six times the
 * function's timeout (plus the batching window, none here), so a batch whose invocation is
 * throttled and retried is not delivered twice, nor counted toward the dead-letter queue.
 */
export function minVisibilityTimeoutS(consumerTimeoutS: number): number {
  return 6 * consumerTimeoutS;
}

/** The name a queue gets in one deployment (`roomkeeper-local-controller-requests.fifo`). */
export function qualifiedQueueName(prefix: string, name: string): string {
  return `${prefix}-${name}`;
}

/** `controllerRequests` → `QUEUE_URL_CONTROLLER_REQUESTS`. */
export function queueUrlVariable(id: QueueId): string {
  return `QUEUE_URL_${id.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}
