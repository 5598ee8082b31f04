import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { qualifiedQueueName, queueDefinitions, type QueueDefinition, type QueueId } from '../core/infra/queues';
import { childEnvironment } from './child-environment';
import { defaultListenHost, endpointHost } from './listen-address';
import { withParentDeathSignal } from './parent-death';

export interface SqsEmulator {
  readonly endpoint: string;
  stop(): Promise<void>;
}

const startTimeoutMs = 30_000;

export interface SqsEmulatorOptions {
  readonly port?: number;
  /**
   * The address it listens on: 127.0.0.1 unless asked otherwise (it has no authentication).
   * `0.0.0.0` opens it to the network.
   */
  readonly host?: string;
}

/**
 * Starts fauxqs on a free port of 127.0.0.1 (unless `host` says otherwise) in a child
 * process (local/sqs-emulator-process.mjs). In AWS,
 * SQS runs elsewhere: served from the platform's own process, every queue request of every
 * sidecar would take turns with the platform's handlers on one event loop. The child is in
 * this process's group (a stop of the platform stops its queues too) and dies
 * with it (`--pdeathsig`, and a closed stdin).
 */
export async function startSqsEmulator(options: SqsEmulatorOptions = {}): Promise<SqsEmulator> {
  const host = options.host ?? defaultListenHost;
  const [command, args] = withParentDeathSignal(process.execPath, [
    join(__dirname, 'sqs-emulator-process.mjs'),
    String(options.port ?? 0),
    host,
  ]);
  // An explicit, minimal environment: nothing of the platform's reaches it (local/child-environment.ts).
  const child = spawn(command, args, { env: childEnvironment(), stdio: ['pipe', 'pipe', 'pipe'] });
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`The SQS emulator did not start within ${startTimeoutMs / 1000} s: ${output.trim()}`));
    }, startTimeoutMs);
    let line = '';
    child.stdout.on('data', (chunk: Buffer) => {
      line += chunk.toString();
      const newline = line.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      resolve(Number(line.slice(0, newline)));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`The SQS emulator exited during start-up (${code ?? signal}): ${output.trim()}`));
    });
  });
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once('exit', () => resolve());
  });
  return {
    endpoint: `http://${endpointHost(host)}:${port}`,
    stop: async () => {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 2_000);
      await exited;
      clearTimeout(killed);
    },
  };
}

function fifoAttributes(definition: { fifo: boolean }): Record<string, string> {
  return definition.fifo ? { FifoQueue: 'true', ContentBasedDeduplication: 'false' } : {};
}

async function createQueue(sqs: SQSClient, name: string, attributes: Record<string, string>): Promise<string> {
  const { QueueUrl } = await sqs.send(new CreateQueueCommand({ QueueName: name, Attributes: attributes }));
  if (!QueueUrl) throw new Error(`The SQS emulator returned no URL for queue ${name}.`);
  return QueueUrl;
}

/**
 * Creates every queue of `queueDefinitions`, each with its dead-letter queue and redrive
 * policy, exactly as the CDK stack declares them. Returns the queue URLs by id.
 */
export async function createQueues(
  sqs: SQSClient,
  prefix: string,
  definitions: Readonly<Record<string, QueueDefinition>> = queueDefinitions,
): Promise<Record<QueueId, string>> {
  const urls: Record<string, string> = {};
  for (const definition of Object.values(definitions)) {
    const dlqUrl = await createQueue(sqs, qualifiedQueueName(prefix, definition.deadLetter.name), {
      ...fifoAttributes(definition),
      MessageRetentionPeriod: String(14 * 24 * 3600),
    });
    const { Attributes } = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }),
    );
    urls[definition.id] = await createQueue(sqs, qualifiedQueueName(prefix, definition.name), {
      ...fifoAttributes(definition),
      VisibilityTimeout: String(definition.visibilityTimeoutS),
      RedrivePolicy: JSON.stringify({
        deadLetterTargetArn: Attributes?.QueueArn,
        maxReceiveCount: definition.deadLetter.maxReceiveCount,
      }),
    });
    urls[`${definition.id}DeadLetter`] = dlqUrl;
  }
  return urls as Record<QueueId, string>;
}
