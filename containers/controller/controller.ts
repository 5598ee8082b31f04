import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SidecarEnvironment } from '../../core/gameservers/sidecar-environment';
import { createSqsClient } from '../../core/infra/aws-clients';
import { assignMethod, type GameMethod } from '../../core/protocol/game-methods';
import { rpcErrorCodes, type RpcError, type RpcId } from '../../core/protocol/jsonrpc';
import { assignQueueName, replyQueueName } from '../../core/protocol/queue-names';
import type { SidecarKeys } from '../../core/protocol/sidecar-channel';
import { afterPlayers, afterReady, selfBoundReached, selfBoundsOf, type RoomWatch, type SelfBounds } from './bounds';
import { PlatformBridge, type ForwardOutcome, type PlatformCommand, type PlatformStop } from './bridge';
import { sessionCredentials } from './credentials';
import { createCommandRelay } from './commands';
import { ControllerStartError } from './errors';
import { gameLaunch } from './game-environment';
import { GameSocket } from './game-socket';
import { startHealthChecks, statusProbe } from './health';
import { PlayerLoad, startHeartbeat, type Ticker } from './heartbeat';
import { endPlan, gameExitReason, noticeGraceMs, noticeWindowMs, type EndReason } from './lifecycle';
import { controllerLogger } from './log';
import { createDispatcher, failure } from './rpc/dispatcher';
import { GameCalls } from './rpc/game-calls';
import { createGameMessageHandler } from './rpc/game-messages';
import { initedMethod } from './rpc/methods/inited';
import { joinedMethod } from './rpc/methods/joined';
import { leftMethod } from './rpc/methods/left';
import { messageMethod } from './rpc/methods/message';
import { checkDeploymentMethod, updateSettingsMethod } from './rpc/methods/platform-reads';
import { createNoticeRelay } from './notices';
import { saveStateMethod } from './rpc/methods/save-state';
import { externalGame, parentDeathGuard, startGameProcess, type GameExit, type SupervisedGame } from './supervisor';

export interface ControllerDependencies {
  /** The sidecar's own environment: the game inherits PATH, HOME and LANG from it, nothing else. */
  readonly hostEnvironment: Readonly<Record<string, string | undefined>>;
  /** This room's channel keys (main.ts reads them from stdin or SIDECAR_KEY). */
  readonly keys: SidecarKeys;
  /** Defaults to a client for AWS_REGION / SQS_ENDPOINT, destroyed when the controller ends. */
  readonly sqs?: SQSClient;
  readonly log?: Logger;
}

interface ControllerOutcome {
  readonly reason: EndReason;
  /** What the sidecar process should exit with. */
  readonly exitCode: 0 | 1;
  readonly game: GameExit;
}

export interface Controller {
  /** The ZeroMQ endpoint the game was given. */
  readonly endpoint: string;
  readonly replyQueueUrl: string;
  readonly gamePid: number | undefined;
  /** Settles once the controller has ended: game gone, `exited` sent, reply queue deleted, socket closed. */
  readonly stopped: Promise<ControllerOutcome>;
  /** Orderly stop (SIGTERM/SIGINT): `shutdown` notice, SIGTERM, SIGKILL after KILL_GRACE_S. */
  stop(reason?: string): Promise<ControllerOutcome>;
  /** A bug in the sidecar: kill the game now, report, clean up. */
  fail(error: unknown): Promise<ControllerOutcome>;
  /** Last resort for process 'exit' handlers: SIGKILL the game, synchronously. */
  killGameNow(): void;
}

const ms = (seconds: number) => Math.round(seconds * 1000);

type CommandRelay = ReturnType<typeof createCommandRelay>;

/** How often the sidecar judges its own bounds: each judgement is a few comparisons. */
const boundCheckMs = 1_000;

/**
 * The controller sidecar of one room, in this process:
 *
 *   reply queue + socket bound ─► game started ─► (inited accepted) ─► ready ─► end
 *                                     │ spawn timer (SPAWN_TIMEOUT_S) ──────────┤ spawn-timeout
 *                                     │ platform refuses inited ────────────────┤ inited-refused
 *                                     │            status probes fail ──────────┤ hung
 *                                     │ the game exits by itself ───────────────┤ exited / crashed
 *                                     │ stop() (SIGTERM) ───────────────────────┤ stopped
 *
 * Every path ends the same way: the game is stopped as `endPlan` says and awaited, the
 * platform gets one `exited`, the reply queue is deleted and the socket closed.
 *
 * @example
 * const controller = await startController(sidecarEnvironmentSchema.parse(process.env), { hostEnvironment: process.env });
 * process.once('SIGTERM', () => void controller.stop());
 * process.exitCode = (await controller.stopped).exitCode;
 */
export async function startController(env: SidecarEnvironment, deps: ControllerDependencies): Promise<Controller> {
  const log = deps.log ?? controllerLogger(env.ROOM_ID);
  // Deployed: the scoped session the spawner issued, renewed through the channel below.
  const session = sessionCredentials(env, log);
  const sqs =
    deps.sqs ??
    createSqsClient({ region: env.AWS_REGION, sqsEndpoint: env.SQS_ENDPOINT, credentials: session?.provider });
  const releaseSqs = () => {
    session?.stop();
    if (!deps.sqs) sqs.destroy();
  };
  log.info('controller starting', {
    binary: env.GAME_BINARY,
    ports: env.GAME_PORTS,
    launch: env.GAME_LAUNCH,
    transport: env.ZMQ_ENDPOINT ? 'fixed' : env.ZMQ_TRANSPORT,
    spawnTimeoutS: env.SPAWN_TIMEOUT_S,
  });
  const bridge = new PlatformBridge({
    sqs,
    roomId: env.ROOM_ID,
    epoch: env.ROOM_EPOCH,
    keys: deps.keys,
    requestQueueUrl: env.CONTROLLER_REQUEST_QUEUE_URL,
    // A replacement server's queue is its epoch's own: its predecessor's may be deleted but not yet reusable.
    replyQueueName: replyQueueName(env.REPLY_QUEUE_PREFIX, env.ROOM_ID, env.ROOM_EPOCH),
    ...(env.STANDBY === '1' ? { assignQueueName: assignQueueName(env.REPLY_QUEUE_PREFIX, env.ROOM_ID) } : {}),
    replyTimeoutMs: ms(env.PLATFORM_REPLY_TIMEOUT_S),
    log,
  });
  const socket = await openChannels(env, bridge, log, releaseSqs);
  session?.start(() => bridge.renewCredentials());
  return new RoomController({ env, hostEnvironment: deps.hostEnvironment, log, bridge, socket, releaseSqs }).handle();
}

/**
 * The reply queue and the game socket. Both must exist before the game can call anything:
 * answers need the queue, the game the socket. When either fails, the platform is told the
 * room crashed, whatever was opened is closed, and ControllerStartError is thrown.
 */
async function openChannels(
  env: SidecarEnvironment,
  bridge: PlatformBridge,
  log: Logger,
  releaseSqs: () => void,
): Promise<GameSocket> {
  const [queue, bound] = await Promise.allSettled([
    bridge.createReplyQueue(),
    GameSocket.bind({
      transport: env.ZMQ_TRANSPORT,
      fixedEndpoint: env.ZMQ_ENDPOINT,
      sendTimeoutMs: Math.min(1_000, ms(env.STATUS_TIMEOUT_S)),
      log,
    }),
  ]);
  if (queue.status === 'fulfilled' && bound.status === 'fulfilled') return bound.value;
  const error = new ControllerStartError(
    env.ROOM_ID,
    queue.status === 'rejected' ? 'reply-queue' : 'socket',
    queue.status === 'rejected' ? 'The reply queue could not be created.' : 'The game socket could not be bound.',
    { cause: queue.status === 'rejected' ? queue.reason : bound.status === 'rejected' ? bound.reason : undefined },
  );
  log.error('controller could not start', { error });
  await bridge.report({ type: 'exited', reason: 'crashed', exitCode: null, signal: null });
  if (bound.status === 'fulfilled') await bound.value.close();
  await bridge.close();
  releaseSqs();
  throw error;
}

interface RoomChannels {
  readonly env: SidecarEnvironment;
  readonly hostEnvironment: Readonly<Record<string, string | undefined>>;
  readonly log: Logger;
  readonly bridge: PlatformBridge;
  readonly socket: GameSocket;
  readonly releaseSqs: () => void;
}

/**
 * One room once its channels are open: it starts the game, answers its calls, relays the
 * platform's commands, and ends the room once (the first reason to end wins).
 */
class RoomController {
  private phase: 'spawning' | 'ready' | 'ending' = 'spawning';
  private ending: Promise<ControllerOutcome> | undefined;
  private settleStopped: (outcome: ControllerOutcome) => void = () => undefined;
  private readonly stopped: Promise<ControllerOutcome>;
  private health: Ticker | undefined;
  /** Started with the game; stopped by an accepted inited or by the end. */
  private readonly spawnTimer: NodeJS.Timeout;
  private readonly heartbeat: Ticker;
  private stopNotice = 'stopped';
  private readonly bounds: SelfBounds;
  private watch: RoomWatch;
  private readonly boundChecks: NodeJS.Timeout;
  private handedOver = false;
  private readonly load = new PlayerLoad((players) => {
    this.watch = afterPlayers(this.watch, players, performance.now());
  });
  private readonly calls: GameCalls;
  private readonly game: SupervisedGame;

  constructor(private readonly room: RoomChannels) {
    const { env, log, bridge, socket } = room;
    this.stopped = new Promise<ControllerOutcome>((resolve) => {
      this.settleStopped = resolve;
    });
    this.calls = new GameCalls(socket);
    this.bounds = selfBoundsOf(env);
    this.watch = { since: performance.now(), lastDelivered: bridge.lastDelivered };
    this.boundChecks = setInterval(() => this.checkBounds(), boundCheckMs);
    this.answerGame();
    this.game = this.launchGame();
    this.spawnTimer = setTimeout(() => {
      log.warn('no inited within the spawn timeout', { spawnTimeoutS: env.SPAWN_TIMEOUT_S });
      void this.end('spawn-timeout');
    }, ms(env.SPAWN_TIMEOUT_S));
    // Milliseconds since this process started: how long the sidecar takes to get the game going.
    log.info('game started', {
      pid: this.game.pid,
      endpoint: socket.endpoint,
      sinceProcessStartMs: Math.round(performance.now()),
    });
    void this.game.exited.then((exit) => {
      if (this.phase !== 'ending') log.warn('game ended by itself', { ...exit });
      return this.end(gameExitReason(exit));
    });
    this.heartbeat = startHeartbeat(ms(env.HEARTBEAT_INTERVAL_S), () =>
      bridge.report({ type: 'heartbeat', load: { players: this.load.players } }, ms(env.HEARTBEAT_INTERVAL_S)),
    );
    this.relayCommands();
  }

  /** Ends the room once it passed a bound the sidecar enforces itself (containers/controller/bounds.ts). */
  private checkBounds(): void {
    const watch = { ...this.watch, lastDelivered: this.room.bridge.lastDelivered };
    const reason = selfBoundReached(watch, this.bounds, performance.now());
    if (!reason || this.ending) return;
    this.room.log.warn('the room passed a bound the sidecar enforces itself; ending it', { reason });
    this.stopNotice = reason;
    void this.end(reason);
  }

  /** What startController hands its caller. */
  handle(): Controller {
    const { game } = this;
    return {
      endpoint: this.room.socket.endpoint,
      replyQueueUrl: this.room.bridge.replyQueueUrl,
      get gamePid() {
        return game.pid;
      },
      stopped: this.stopped,
      stop: (reason = 'stopped') => {
        this.stopNotice = reason;
        return this.end('stopped');
      },
      fail: (error) => {
        this.room.log.critical('controller failed; killing the game', { error });
        game.kill();
        return this.end('fatal');
      },
      killGameNow: () => game.kill(),
    };
  }

  /**
   * The game's calls (inited, joined, left, save_state, update_settings, check_deployment,
   * message) and the answers to the sidecar's own.
   */
  private answerGame(): void {
    const { bridge, socket, log } = this.room;
    const dispatch = createDispatcher(
      {
        inited: initedMethod({
          forward: this.forward('inited'),
          onAccepted: () => this.onAccepted(),
          onRefused: (error) => this.onRefused(error),
        }),
        joined: joinedMethod(this.forward('joined'), this.load),
        left: leftMethod(this.forward('left'), this.load),
        save_state: saveStateMethod(this.forward('save_state')),
        update_settings: updateSettingsMethod(this.forward('update_settings')),
        check_deployment: checkDeploymentMethod(this.forward('check_deployment')),
        message: messageMethod({
          forward: (data) => bridge.forwardMessage(data),
          open: () => this.phase !== 'ending',
          now: () => performance.now(),
        }),
      },
      (method, error) => log.error('method handler failed', { method, error }),
    );
    const handleMessage = createGameMessageHandler({
      send: (message) => socket.send(message),
      settle: (response) => this.calls.settle(response),
      dispatch,
      log,
    });
    void socket.receive((frames) => {
      handleMessage(frames).catch((error: unknown) => log.error('handling a game message failed', { error }));
    });
  }

  /** Once the room is ending nothing more is forwarded: the platform would refuse it anyway. */
  private forward(method: GameMethod) {
    return async (params: unknown, id?: RpcId): Promise<ForwardOutcome> =>
      this.phase === 'ending'
        ? { ...failure(rpcErrorCodes.roomClosed, 'The room is ending.'), decidedBy: 'controller' }
        : this.room.bridge.call(method, params, id);
  }

  private onAccepted(): void {
    if (this.phase !== 'spawning') return;
    const { env, log } = this.room;
    this.phase = 'ready';
    clearTimeout(this.spawnTimer);
    // A standby server has no players by design until its hand-over.
    if (env.STANDBY !== '1') this.watch = afterReady(this.watch, performance.now(), false);
    log.info('game is ready (inited accepted)');
    this.health = startHealthChecks({
      intervalMs: ms(env.STATUS_INTERVAL_S),
      // A standby server is probed at once: it proves the game answers before anyone is handed it.
      ...(env.STANDBY === '1' ? { firstProbeAfterMs: 0 } : {}),
      probe: statusProbe(this.calls, ms(env.STATUS_TIMEOUT_S)),
      onHung: (why) => {
        log.warn('game is hung', { why });
        void this.end('hung');
      },
    });
  }

  private onRefused(error: RpcError): void {
    this.room.log.warn('platform refused inited; the game must exit', { code: error.code, reason: error.message });
    void this.end('inited-refused');
  }

  private launchGame(): SupervisedGame {
    const { env, log, socket } = this.room;
    if (env.GAME_LAUNCH === 'external') return externalGame((timeoutMs) => socket.peerGone(timeoutMs));
    return startGameProcess(gameLaunch(env, socket.endpoint, this.room.hostEnvironment), {
      log,
      secrets: [env.LOGIN_ACCESS_TOKEN],
      // Every log line already carries it as `roomId`: a game's own mention of it is no leak.
      kept: [env.ROOM_ID],
      guard: parentDeathGuard(),
    });
  }

  /** The platform's commands and notices, relayed to the game while the room is not ending. */
  private relayCommands(): void {
    const { env, log, bridge } = this.room;
    const relay: CommandRelay = createCommandRelay({
      whitelist: env.COMMAND_WHITELIST,
      standby: env.STANDBY === '1',
      calls: this.calls,
      timeoutMs: ms(env.PLATFORM_REPLY_TIMEOUT_S),
      answer: (commandId, answer) => bridge.answerCommand(commandId, answer),
      answerAssign: (commandId, answer) => bridge.answerAssign(commandId, answer),
      log,
    });
    const relayNotice = createNoticeRelay({
      open: () => this.phase !== 'ending',
      notify: (method, params) => this.calls.notify(method, params),
      log,
    });
    bridge.consume(
      (command) => this.onCommand(command, relay),
      (stop) => this.onPlatformStop(stop),
      (notice) => void relayNotice(notice).catch((error: unknown) => log.error('relaying a notice failed', { error })),
    );
  }

  /**
   * The platform closed the room for a cost bound at a heartbeat (docs/cost-bounds.md): the
   * room ends as when the sidecar's own bound is reached. A stop to a room already ending (a
   * second one, or one behind its own bound) changes nothing: the first reason to end wins.
   */
  private onPlatformStop(stop: PlatformStop): void {
    if (this.ending) return;
    this.room.log.warn('the platform closed the room for a cost bound; ending it', { reason: stop.reason });
    this.stopNotice = stop.reason;
    void this.end(stop.reason);
  }

  private onCommand(command: PlatformCommand, relay: CommandRelay): Promise<void> | undefined {
    if (this.phase === 'ending') return undefined;
    if (command.method === assignMethod && this.room.env.STANDBY === '1' && !this.handedOver) {
      // The room's lifetime and its creator's reservation count from the hand-over.
      this.handedOver = true;
      this.watch = afterReady(this.watch, performance.now(), true);
    }
    const relayed = relay(command);
    // The hand-over first: nothing else of this sidecar's runs beside the answer a create waits for.
    if (command.method === assignMethod) return relayed;
    void relayed;
    return undefined;
  }

  /** The first reason to end wins; later ones (the killed game's own exit) join it. */
  private end(reason: EndReason): Promise<ControllerOutcome> {
    if (!this.ending) {
      this.ending = this.finish(reason).catch((error: unknown) => {
        // Cleanup itself failed: the game must still not outlive the sidecar.
        this.room.log.error('controller cleanup failed', { error });
        this.game.kill();
        return { reason, exitCode: 1, game: { code: null, signal: null } } satisfies ControllerOutcome;
      });
      void this.ending.then(this.settleStopped);
    }
    return this.ending;
  }

  private async finish(reason: EndReason): Promise<ControllerOutcome> {
    const { log, bridge, socket } = this.room;
    this.phase = 'ending';
    clearTimeout(this.spawnTimer);
    clearInterval(this.boundChecks);
    this.health?.stop();
    this.heartbeat.stop();
    const plan = endPlan(reason);
    log.info('controller ending', { reason, stopGame: plan.stopGame, pid: this.game.pid });
    const exit = await this.stopGame(reason);
    this.calls.cancelAll();
    await bridge.report({ type: 'exited', reason: plan.report, exitCode: exit.code, signal: exit.signal });
    await bridge.close();
    await socket.close();
    this.room.releaseSqs();
    log.info('controller stopped', {
      reason,
      exitCode: plan.exitCode,
      gameExitCode: exit.code,
      gameSignal: exit.signal,
    });
    return { reason, exitCode: plan.exitCode, game: exit };
  }

  private async stopGame(reason: EndReason): Promise<GameExit> {
    const { game } = this;
    const graceMs = ms(this.room.env.KILL_GRACE_S);
    switch (endPlan(reason).stopGame) {
      case 'none':
        return game.exited;
      case 'kill':
        game.kill();
        return game.exited;
      case 'await-exit':
        return game.awaitExit(graceMs);
      case 'terminate':
        return game.terminate(graceMs);
      case 'notice-then-terminate': {
        // Before it ever spoke, a send would only wait for a peer that is not there.
        if (!this.room.socket.peerHeard) return game.terminate(graceMs);
        // graceS: how long it has to exit by itself before the signals start.
        const noticeMs = noticeGraceMs(graceMs, game.canSignal);
        const told = await this.calls.notify('shutdown', { reason: this.stopNotice, graceS: noticeMs / 1000 });
        if (game.canSignal) return game.terminate(graceMs, noticeWindowMs(graceMs));
        // ECS signals an external game once the sidecar has exited: it gets the grace first.
        return told ? game.awaitExit(graceMs) : game.terminate(graceMs);
      }
    }
  }
}
