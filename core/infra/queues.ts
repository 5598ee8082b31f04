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
  readonly visibilityTimeoutS: number;
  readonly deadLetter: { readonly name: string; readonly maxReceiveCount: number };
  /** Records per consumer invocation (event source mapping batch size). */
  readonly batchSize: number;
  /** Module (from the repository root) whose `handler` consumes the queue. */
  readonly consumer: string;
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
    visibilityTimeoutS: 30,
    deadLetter: { name: 'controller-requests-dlq.fifo', maxReceiveCount: 5 },
    batchSize: 10,
    consumer: 'lambdas/queue/controller-events.ts',
    // Checks and seals the sidecar channel (keyed by the signing key), mints joined-player
    // tokens, and renews sidecar sessions.
    needs: ['signTokens', 'sidecarCredentials'],
  },
} as const satisfies Record<string, QueueDefinition>;

export type QueueId = keyof typeof queueDefinitions;

/** The name a queue gets in one deployment (`roomkeeper-local-controller-requests.fifo`). */
export function qualifiedQueueName(prefix: string, name: string): string {
  return `${prefix}-${name}`;
}

/** `controllerRequests` → `QUEUE_URL_CONTROLLER_REQUESTS`. */
export function queueUrlVariable(id: QueueId): string {
  return `QUEUE_URL_${id.replace(/[A-Z]/g, (c) => `_${c}`).toUpperCase()}`;
}
