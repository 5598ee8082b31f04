import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  CreateQueueCommand,
  DeleteMessageCommand,
  DeleteQueueCommand,
  ListQueuesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import { Pair } from 'zeromq';
import { bundle } from '../../../containers/build';
import { createSqsClient } from '../../../core/infra/aws-clients';
import {
  controllerRequestSchema,
  type ControllerReply,
  type ControllerRequest,
} from '../../../core/protocol/controller-messages';
import type { RpcError } from '../../../core/protocol/jsonrpc';
import { hashRegistrationKey } from '../../../core/rooms/registration-keys';
import {
  encodeRoomKey,
  openRequest,
  sealReply,
  sidecarKeysFromRoomKey,
  type SidecarKeys,
} from '../../../core/protocol/sidecar-channel';
import { processTreeAlive } from '../../helpers/processes';
import { emulatorEndpoints } from '../../helpers/platform';

/**
 * The controller sidecar under test runs as a real process (the esbuild bundle the local
 * fleet runs), against the real SQS emulator; the test plays the platform: it consumes the
 * FIFO request queue and answers on the sidecar's reply queue.
 */
export const protocolGame = join(__dirname, '../../fixtures/games/protocol-game.mjs');
export const sampleGame = join(__dirname, '../../../containers/sample-game/bin/sample-game');

/** The game server's own token, as a spawner would hand it: it must never show in a log. */
export const loginToken = 'eyJhbGciOiJFZERTQSJ9.eyJzdWIiOiJnYW1lLXNlcnZlciJ9.c2lnbmF0dXJlLW9mLXRoZS10b2tlbg';

export type RpcRequestMessage = Extract<ControllerRequest, { type: 'rpc' }>;
export type PlatformAnswer = { readonly result: unknown } | { readonly error: RpcError };
/** How the test platform answers a forwarded call: an answer, several (redelivery), or none. */
export type Answerer = (request: RpcRequestMessage) => PlatformAnswer | PlatformAnswer[] | undefined;

/**
 * The account `acceptAll` answers for the player holding `key`: like the real platform, it
 * knows the player only by the key's hash, which is all the sidecar sends.
 */
export const accountOfKey = (key: string): string => `account-${hashRegistrationKey(key).slice(0, 12)}`;

export const acceptAll: Answerer = (request) => {
  switch (request.method) {
    case 'joined': {
      const tag = request.params.keyHash.slice(0, 12);
      return { result: { access_token: `player-token-${tag}`, account: `account-${tag}`, info: {}, scopes: [] } };
    }
    default:
      return { result: { status: 'OK' } };
  }
};

export interface ReceivedRequest {
  readonly message: ControllerRequest;
  readonly groupId?: string;
  readonly deduplicationId?: string;
  readonly receivedAt: number;
}

export interface GameEvent {
  readonly event: string;
  readonly at: number;
  readonly pid: number;
  readonly [key: string]: unknown;
}

export interface SidecarOptions {
  /** Game arguments after the ports (protocol-game mode and flags). */
  readonly args?: readonly string[];
  readonly binary?: string;
  /** Extra or overriding sidecar variables (timeouts, GAME_LAUNCH, ZMQ_ENDPOINT, GAME_PORTS, …). */
  readonly env?: Readonly<Record<string, string>>;
  /** Configured game variables (GAME_ENV); PROTOCOL_GAME_RECORD is always added. */
  readonly gameEnv?: Readonly<Record<string, string>>;
  readonly answer?: Answerer;
  /** What the sidecar reads on stdin instead of the room's key. */
  readonly stdin?: string;
  /** The room's channel keys when the real consumer answers (it derives them from the platform's secret). */
  readonly keys?: SidecarKeys;
  /** The room id; default a short `room-…` one (the platform's are UUIDs). */
  readonly roomId?: string;
}

const shortTimeouts = {
  SPAWN_TIMEOUT_S: '5',
  STATUS_INTERVAL_S: '0.5',
  STATUS_TIMEOUT_S: '1',
  HEARTBEAT_INTERVAL_S: '0.5',
  PLATFORM_REPLY_TIMEOUT_S: '3',
  KILL_GRACE_S: '1',
};

/** Every process a test started, checked in `expectNoLeftovers`. */
const startedPids = new Set<number>();

let sharedSqs: SQSClient | undefined;
export function sqsClient(): SQSClient {
  sharedSqs ??= createSqsClient({ region: 'us-east-1', sqsEndpoint: emulatorEndpoints().sqs });
  return sharedSqs;
}

/**
 * The platform, as far as one sidecar can tell: a FIFO request queue of its own, consumed
 * with the SQS SDK, and answers sent to the reply queue named in each request.
 */
export class PlatformDouble {
  readonly received: ReceivedRequest[] = [];
  private readonly polling = new AbortController();
  private readonly pollLoop: Promise<void>;
  private waiters: Array<() => void> = [];

  protected constructor(
    readonly roomId: string,
    readonly requestQueueUrl: string,
    readonly replyQueueName: string,
    readonly recordFile: string,
    private readonly answer: Answerer,
    protected readonly scratch: string,
    /** The room's channel keys, as the real platform would derive them; the sidecar gets K_room on stdin. */
    readonly keys: SidecarKeys,
  ) {
    this.pollLoop = this.poll();
  }

  /** A fresh room id, request queue and scratch directory (for the game's record file). */
  static async create(answer: Answerer = acceptAll): Promise<PlatformDouble> {
    const setup = await prepare();
    return new PlatformDouble(
      setup.roomId,
      setup.requestQueueUrl,
      setup.replyQueueName,
      setup.recordFile,
      answer,
      setup.scratch,
      setup.keys,
    );
  }

  /** The sidecar environment for this room: the tests' defaults, then `options`. */
  sidecarEnvironment(options: SidecarOptions = {}): Record<string, string> {
    return sidecarEnvironment(this, options);
  }

  /** What the game wrote about itself (argv, env, calls, answers, requests). */
  gameEvents(event?: string): GameEvent[] {
    let text: string;
    try {
      text = readFileSync(this.recordFile, 'utf8');
    } catch {
      return [];
    }
    const events = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as GameEvent);
    return event ? events.filter((e) => e.event === event) : events;
  }

  /** The game's pid, from its own record. */
  get gamePid(): number | undefined {
    return this.gameEvents('start')[0]?.pid;
  }

  messages<T extends ControllerRequest['type']>(type: T): Array<Extract<ControllerRequest, { type: T }>> {
    return this.received.flatMap((r) =>
      r.message.type === type ? [r.message as Extract<ControllerRequest, { type: T }>] : [],
    );
  }

  /** Waits until `check` returns something truthy (re-checked on every platform message and every 25 ms). */
  async until<T>(check: () => T | undefined | false, timeoutMs = 5_000, what = 'condition'): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = check();
      if (value) return value;
      if (Date.now() > deadline)
        throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.\n${this.describe()}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 25);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** The `exited` report, once the sidecar sent it. */
  exitReport(timeoutMs = 8_000): Promise<Extract<ControllerRequest, { type: 'exited' }>> {
    return this.until(() => this.messages('exited')[0], timeoutMs, 'the exited report');
  }

  /** Sends a platform → sidecar message to the reply queue, sealed for this room (or as `body`, raw). */
  async sendReply(reply: ControllerReply, body = this.seal(reply)): Promise<void> {
    const queueUrl = await this.replyQueueUrl();
    await sqsClient().send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
  }

  /** What the platform puts on this room's reply queue for `reply`. */
  seal(reply: ControllerReply): string {
    return JSON.stringify(sealReply(this.keys, JSON.stringify(reply)));
  }

  async replyQueueUrl(): Promise<string> {
    const rpc = this.messages('rpc')[0];
    if (rpc) return rpc.replyTo;
    return (await listQueues(this.replyQueueName))[0] ?? '';
  }

  describe(): string {
    return [
      `platform got: ${this.received.map((r) => JSON.stringify(r.message)).join('\n  ')}`,
      `game record:\n  ${this.gameEvents()
        .filter((e) => e.event !== 'start')
        .slice(-20)
        .map((e) => JSON.stringify(e))
        .join('\n  ')}`,
    ].join('\n');
  }

  /** Stops consuming, removes the request queue and scratch directory, and kills a game left over. */
  async dispose(): Promise<void> {
    const game = this.gamePid;
    if (game && processTreeAlive(game)) process.kill(game, 'SIGKILL');
    this.polling.abort();
    await this.pollLoop;
    // A sidecar killed outright leaves its reply queue behind; the emulator is shared.
    for (const queueUrl of [this.requestQueueUrl, ...(await listQueues(this.replyQueueName))]) {
      await sqsClient()
        .send(new DeleteQueueCommand({ QueueUrl: queueUrl }))
        .catch(() => undefined);
    }
    rmSync(this.scratch, { recursive: true, force: true });
  }

  private async poll(): Promise<void> {
    const sqs = sqsClient();
    while (!this.polling.signal.aborted) {
      let messages: Message[];
      try {
        ({ Messages: messages = [] } = await sqs.send(
          new ReceiveMessageCommand({
            QueueUrl: this.requestQueueUrl,
            MaxNumberOfMessages: 10,
            WaitTimeSeconds: 20,
            MessageSystemAttributeNames: ['All'],
          }),
          { abortSignal: this.polling.signal },
        ));
      } catch {
        if (this.polling.signal.aborted) return;
        continue;
      }
      for (const m of messages) {
        // As the real consumer: only envelopes MAC'd with this room's key are read at all.
        const opened = await openRequest(m.Body ?? '', () => Promise.resolve(this.keys));
        if (!opened.ok) throw new Error(`The sidecar sent a message the platform would refuse (${opened.reason}).`);
        const message = controllerRequestSchema.parse(JSON.parse(opened.payload));
        this.received.push({
          message,
          groupId: m.Attributes?.MessageGroupId,
          deduplicationId: m.Attributes?.MessageDeduplicationId,
          receivedAt: Date.now(),
        });
        await sqs.send(new DeleteMessageCommand({ QueueUrl: this.requestQueueUrl, ReceiptHandle: m.ReceiptHandle }));
        if (message.type === 'rpc') await this.answerRpc(message);
      }
      const waiters = this.waiters;
      this.waiters = [];
      for (const wake of waiters) wake();
    }
  }

  private async answerRpc(request: RpcRequestMessage): Promise<void> {
    const answers = this.answer(request);
    for (const answer of answers === undefined ? [] : Array.isArray(answers) ? answers : [answers]) {
      try {
        await sqsClient().send(
          new SendMessageCommand({
            QueueUrl: request.replyTo,
            MessageBody: this.seal({ type: 'reply', correlationId: request.correlationId, ...answer }),
          }),
        );
      } catch (error) {
        // As for the real platform: a sidecar that has stopped has deleted its reply queue.
        if ((error as Error).name !== 'QueueDoesNotExist') throw error;
      }
    }
  }
}

/** A sidecar running as a real process (the bundle), with the platform double it talks to. */
export class SidecarRun extends PlatformDouble {
  readonly stdout: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; at: number }>;
  readonly child: ChildProcess;

  constructor(setup: RoomSetup, answer: Answerer, child: ChildProcess) {
    super(
      setup.roomId,
      setup.requestQueueUrl,
      setup.replyQueueName,
      setup.recordFile,
      answer,
      setup.scratch,
      setup.keys,
    );
    this.child = child;
    if (child.pid) startedPids.add(child.pid);
    // Powertools writes warnings and errors to stderr: collect both streams as one log.
    for (const stream of [child.stdout, child.stderr]) {
      let buffered = '';
      stream?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        this.stdout.push(...lines);
      });
    }
    this.exited = new Promise((resolve) =>
      child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
    );
  }

  /** The sidecar's structured log lines. */
  get logs(): Array<Record<string, unknown>> {
    return this.stdout.flatMap((line) => {
      try {
        return [JSON.parse(line) as Record<string, unknown>];
      } catch {
        return [];
      }
    });
  }

  /** The game's pid: from its own record (protocol game), else from the sidecar's log. */
  override get gamePid(): number | undefined {
    const logged = this.logs.find((l) => l.message === 'game started')?.pid;
    return super.gamePid ?? (typeof logged === 'number' ? logged : undefined);
  }

  /** SIGTERM (or another signal) to the sidecar, then waits for it to exit. */
  async signal(signal: NodeJS.Signals = 'SIGTERM') {
    this.child.kill(signal);
    return this.exited;
  }

  override describe(): string {
    return `${super.describe()}\nsidecar log:\n  ${this.stdout.slice(-30).join('\n  ')}`;
  }

  /** Ends the run whatever state it is in: sidecar (and so its game) stopped, queue removed. */
  override async dispose(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      // Orderly first, so the sidecar removes what it made; SIGKILL if that takes too long.
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 3_000);
      await this.exited;
      clearTimeout(timer);
    }
    // Only a sidecar killed outright leaves its private socket directory behind.
    const endpoint = this.logs.find((l) => l.message === 'game started')?.endpoint;
    if (typeof endpoint === 'string' && endpoint.includes('/roomkeeper-zmq-')) {
      rmSync(dirname(endpoint.slice('ipc://'.length)), { recursive: true, force: true });
    }
    await super.dispose();
  }
}

export async function listQueues(prefix: string): Promise<string[]> {
  const { QueueUrls = [] } = await sqsClient().send(new ListQueuesCommand({ QueueNamePrefix: prefix }));
  return QueueUrls;
}

const replyQueuePrefix = 'rk-test-reply-';

interface RoomSetup {
  readonly roomId: string;
  readonly requestQueueUrl: string;
  readonly replyQueueName: string;
  readonly recordFile: string;
  readonly scratch: string;
  readonly keys: SidecarKeys;
}

async function prepare(roomId = `room-${randomUUID().slice(0, 8)}`): Promise<RoomSetup> {
  const { QueueUrl: requestQueueUrl = '' } = await sqsClient().send(
    new CreateQueueCommand({
      QueueName: `rk-test-requests-${roomId}.fifo`,
      Attributes: { FifoQueue: 'true', ContentBasedDeduplication: 'false' },
    }),
  );
  const scratch = mkdtempSync(join(tmpdir(), 'rk-controller-test-'));
  return {
    roomId,
    requestQueueUrl,
    replyQueueName: `${replyQueuePrefix}${roomId}`,
    recordFile: join(scratch, 'game.jsonl'),
    scratch,
    keys: sidecarKeysFromRoomKey(roomId, randomBytes(32)),
  };
}

/** The sidecar environment for one room: the tests' short timeouts and secrets, then `options`. */
function sidecarEnvironment(
  room: Pick<RoomSetup, 'roomId' | 'requestQueueUrl' | 'recordFile'>,
  options: SidecarOptions,
): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/',
    LANG: 'C.UTF-8',
    POWERTOOLS_LOG_LEVEL: 'DEBUG',
    // The sidecar's own secrets: none of them may reach the game.
    AWS_ACCESS_KEY_ID: 'sidecar-only-access-key',
    AWS_SECRET_ACCESS_KEY: 'sidecar-only-secret-key',
    ROOM_ID: room.roomId,
    AWS_REGION: 'us-east-1',
    SQS_ENDPOINT: emulatorEndpoints().sqs,
    CONTROLLER_REQUEST_QUEUE_URL: room.requestQueueUrl,
    REPLY_QUEUE_PREFIX: replyQueuePrefix,
    GAME_BINARY: options.binary ?? protocolGame,
    GAME_ARGS: JSON.stringify(options.args ?? ['ok']),
    GAME_PORTS: '38801,38802',
    GAME_ENV: JSON.stringify({ PROTOCOL_GAME_RECORD: room.recordFile, ...options.gameEnv }),
    GAME_MAX_PLAYERS: '4',
    ROOM_SETTINGS: JSON.stringify({ map: 'harbor', mode: 'duel' }),
    SERVER_SETTINGS: JSON.stringify({ tick: 20 }),
    DISCOVERY_SERVICES: JSON.stringify({ login: 'http://127.0.0.1:1/login' }),
    LOGIN_ACCESS_TOKEN: loginToken,
    COMMAND_WHITELIST: JSON.stringify(['say', 'join', 'leave']),
    ...shortTimeouts,
    ...options.env,
  };
}

/** Starts one sidecar (bundle, real process) for a fresh room, with its own FIFO request queue. */
export async function startSidecar(options: SidecarOptions = {}): Promise<SidecarRun> {
  const [setup, entry] = await Promise.all([prepare(options.roomId), bundle('controller')]);
  const env = sidecarEnvironment(setup, options);
  // K_room on stdin, as the local fleet passes it (unless a test puts SIDECAR_KEY in the environment).
  const child = spawn(process.execPath, [entry], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin?.on('error', () => undefined);
  child.stdin?.end(options.stdin ?? `${encodeRoomKey(options.keys ?? setup.keys)}\n`);
  return new SidecarRun(setup, options.answer ?? acceptAll, child);
}

/** Runs `scenario` against a fresh sidecar and always disposes of it, also when it fails. */
export async function withSidecar<T>(options: SidecarOptions, scenario: (run: SidecarRun) => Promise<T>): Promise<T> {
  const run = await startSidecar(options);
  try {
    return await scenario(run);
  } catch (error) {
    // Everything the platform, the sidecar and the game saw, next to the failure.
    throw new Error(`${(error as Error).message}\n${run.describe()}`, { cause: error });
  } finally {
    rememberPid(run.gamePid);
    await run.dispose();
  }
}

/** Fails if any sidecar or game a test started still runs. */
export function expectNoLeftovers(extraPids: readonly number[] = []): void {
  const alive = [...startedPids, ...extraPids].filter(processTreeAlive);
  expect(alive).toEqual([]);
}

export function rememberPid(pid: number | undefined): void {
  if (pid) startedPids.add(pid);
}

export function closeHarness(): void {
  sharedSqs?.destroy();
  sharedSqs = undefined;
}

/**
 * The test as the game (GAME_LAUNCH=external): a PAIR socket connected to the sidecar's fixed
 * endpoint, sending raw frames and reading every message the controller sends.
 */
export class TestGame {
  private readonly socket = new Pair({ linger: 0, sendTimeout: 2_000, receiveTimeout: -1 });
  private readonly inbox: unknown[] = [];
  private waiter: (() => void) | undefined;
  private closed = false;
  private nextId = 1;

  constructor(endpoint: string) {
    this.socket.connect(endpoint);
    void this.receive();
  }

  send(frame: string | Buffer | Array<string | Buffer>): Promise<void> {
    return this.socket.send(frame);
  }

  /** Sends a request and returns the next message that answers its id (`id`: to repeat a request, as a retry does). */
  async call(
    method: string,
    params?: unknown,
    timeoutMs = 5_000,
    id: string | number = `t-${this.nextId++}`,
  ): Promise<Record<string, unknown>> {
    await this.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    return this.next((m) => (m as { id?: unknown }).id === id, timeoutMs) as Promise<Record<string, unknown>>;
  }

  /** The next message the controller sent that matches (earlier ones that do not stay queued). */
  async next(match: (message: unknown) => boolean = () => true, timeoutMs = 3_000): Promise<unknown> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.inbox.findIndex(match);
      if (index >= 0) return this.inbox.splice(index, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** Messages received and not yet taken. */
  get pending(): readonly unknown[] {
    return [...this.inbox];
  }

  /** Takes every message received and not yet taken. */
  drain(): unknown[] {
    return this.inbox.splice(0);
  }

  close(): void {
    this.closed = true;
    this.socket.close();
  }

  private async receive(): Promise<void> {
    while (!this.closed) {
      try {
        const [frame] = await this.socket.receive();
        this.inbox.push(JSON.parse(frame?.toString() ?? 'null'));
        this.waiter?.();
      } catch {
        if (this.closed) return;
      }
    }
  }
}

/** A fixed ipc endpoint in a fresh directory, for GAME_LAUNCH=external runs. */
export function externalEndpoint(): { endpoint: string; cleanup(): void } {
  const directory = mkdtempSync(join(tmpdir(), 'rk-external-'));
  return {
    endpoint: `ipc://${join(directory, 'game.sock')}`,
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
