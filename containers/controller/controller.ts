import type { SQSClient } from '@aws-sdk/client-sqs';
import type { Logger } from '@aws-lambda-powertools/logger';
import type { SidecarEnvironment } from '../../core/gameservers/sidecar-environment';
import { createSqsClient } from '../../core/infra/aws-clients';
import type { GameMethod } from '../../core/protocol/game-methods';
import { rpcErrorCodes, type RpcError } from '../../core/protocol/jsonrpc';
import { assignQueueName } from '../../core/protocol/queue-names';
import type { SidecarKeys } from '../../core/protocol/sidecar-channel';
import { PlatformBridge, type ForwardOutcome } from './bridge';
import { sessionCredentials } from './credentials';
import { assignMethod, assignWarmUp, createCommandRelay, handOverYieldMs } from './commands';
import { ControllerStartError } from './errors';
import { gameLaunch } from './game-environment';
import { GameSocket } from './game-socket';
import { startHealthChecks, statusProbe } from './health';
import { PlayerLoad, startHeartbeat, type Ticker } from './heartbeat';
import { endPlan, gameExitReason, noticeWindowMs, type EndReason } from './lifecycle';
import { controllerLogger } from './log';
import { createDispatcher, failure } from './rpc/dispatcher';
import { GameCalls } from './rpc/game-calls';
import { createGameMessageHandler } from './rpc/game-messages';
import { initedMethod } from './rpc/methods/inited';
import { joinedMethod } from './rpc/methods/joined';
import { leftMethod } from './rpc/methods/left';
import { messageMethod } from './rpc/methods/message';
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

export interface ControllerOutcome {
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
    keys: deps.keys,
    requestQueueUrl: env.CONTROLLER_REQUEST_QUEUE_URL,
    replyQueueName: `${env.REPLY_QUEUE_PREFIX}${env.ROOM_ID}`,
    ...(env.STANDBY === '1'
      ? {
          assignQueueName: assignQueueName(env.REPLY_QUEUE_PREFIX, env.ROOM_ID),
          yieldAfterHoldMs: handOverYieldMs,
        }
      : {}),
    replyTimeoutMs: ms(env.PLATFORM_REPLY_TIMEOUT_S),
    log,
  });
  // Both must exist before the game can call anything: answers need the queue, the game the socket.
  const [queue, bound] = await Promise.allSettled([
    bridge.createReplyQueue(),
    GameSocket.bind({
      transport: env.ZMQ_TRANSPORT,
      fixedEndpoint: env.ZMQ_ENDPOINT,
      sendTimeoutMs: Math.min(1_000, ms(env.STATUS_TIMEOUT_S)),
      log,
    }),
  ]);
  if (queue.status === 'rejected' || bound.status === 'rejected') {
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
  const socket = bound.value;
  session?.start(() => bridge.renewCredentials());
  // While the game starts: a standby server's hand-over path is run before it can be pooled.
  const assignPathWarm =
    env.STANDBY === '1' ? bridge.warmUpAssignPath(assignWarmUp.rounds, assignWarmUp.withinMs) : Promise.resolve();

  const load = new PlayerLoad();
  const calls = new GameCalls(socket);
  const probe = statusProbe(calls, ms(env.STATUS_TIMEOUT_S));
  let phase: 'spawning' | 'ready' | 'ending' = 'spawning';
  let ending: Promise<ControllerOutcome> | undefined;
  let settleStopped: (outcome: ControllerOutcome) => void = () => undefined;
  const stopped = new Promise<ControllerOutcome>((resolve) => {
    settleStopped = resolve;
  });
  let health: Ticker | undefined;
  // Started with the game; stopped by an accepted inited or by the end.
  let spawnTimer: NodeJS.Timeout | undefined = undefined;
  let stopNotice = 'stopped';

  const onAccepted = () => {
    if (phase !== 'spawning') return;
    phase = 'ready';
    clearTimeout(spawnTimer);
    log.info('game is ready (inited accepted)');
    const standby = env.STANDBY === '1';
    if (standby) {
      bridge.warmUpCommandPath();
      // The game's side of the hand-over too: a call to the game and its answer, compiled.
      void (async () => {
        for (let round = 0; round < assignWarmUp.rounds && phase === 'ready'; round++) await probe();
      })();
    }
    health = startHealthChecks({
      intervalMs: ms(env.STATUS_INTERVAL_S),
      // A standby server is probed at once: it proves the game answers before anyone is handed
      // it, and the game's and this sidecar's request and answer paths run (and compile) now,
      // not in the hand-over a player's create waits for.
      ...(standby ? { firstProbeAfterMs: 0 } : {}),
      probe,
      onHung,
    });
  };
  const onRefused = (error: RpcError) => {
    log.warn('platform refused inited; the game must exit', { code: error.code, reason: error.message });
    void end('inited-refused');
  };
  const onHung = (why: string) => {
    log.warn('game is hung', { why });
    void end('hung');
  };
  /** Once the room is ending nothing more is forwarded: the platform would refuse it anyway. */
  const forward =
    (method: GameMethod) =>
    async (params: unknown): Promise<ForwardOutcome> =>
      phase === 'ending'
        ? { ...failure(rpcErrorCodes.roomClosed, 'The room is ending.'), decidedBy: 'controller' }
        : bridge.call(method, params);
  const dispatch = createDispatcher(
    {
      inited: initedMethod({
        // Pooled once the platform has it: not before the warm-up left the assign queue empty.
        forward: async (params) => {
          await assignPathWarm;
          return forward('inited')(params);
        },
        onAccepted,
        onRefused,
      }),
      joined: joinedMethod(forward('joined'), load),
      left: leftMethod(forward('left'), load),
      message: messageMethod({
        forward: (data) => bridge.forwardMessage(data),
        open: () => phase !== 'ending',
        now: () => performance.now(),
      }),
    },
    (method, error) => log.error('method handler failed', { method, error }),
  );

  const handleMessage = createGameMessageHandler({
    send: (message) => socket.send(message),
    settle: (response) => calls.settle(response),
    dispatch,
    log,
  });
  void socket.receive((frames) => {
    handleMessage(frames).catch((error: unknown) => log.error('handling a game message failed', { error }));
  });

  let game: SupervisedGame;
  if (env.GAME_LAUNCH === 'external') {
    game = externalGame();
  } else {
    const launch = gameLaunch(env, socket.endpoint, deps.hostEnvironment);
    game = startGameProcess(launch, {
      log,
      secrets: [env.LOGIN_ACCESS_TOKEN],
      // Every log line already carries it as `roomId`: a game's own mention of it is no leak.
      kept: [env.ROOM_ID],
      guard: parentDeathGuard(),
    });
  }
  spawnTimer = setTimeout(() => {
    log.warn('no inited within the spawn timeout', { spawnTimeoutS: env.SPAWN_TIMEOUT_S });
    void end('spawn-timeout');
  }, ms(env.SPAWN_TIMEOUT_S));
  // Milliseconds since this process started: how long the sidecar takes to get the game going.
  log.info('game started', {
    pid: game.pid,
    endpoint: socket.endpoint,
    sinceProcessStartMs: Math.round(performance.now()),
  });
  void game.exited.then((exit) => {
    if (phase !== 'ending') log.warn('game ended by itself', { ...exit });
    return end(gameExitReason(exit));
  });

  const heartbeat = startHeartbeat(ms(env.HEARTBEAT_INTERVAL_S), () =>
    bridge.report({ type: 'heartbeat', load: { players: load.players } }, ms(env.HEARTBEAT_INTERVAL_S)),
  );
  const relay = createCommandRelay({
    whitelist: env.COMMAND_WHITELIST,
    standby: env.STANDBY === '1',
    calls,
    timeoutMs: ms(env.PLATFORM_REPLY_TIMEOUT_S),
    answer: (commandId, answer) => bridge.answerCommand(commandId, answer),
    answerAssign: (commandId, answer) => bridge.answerAssign(commandId, answer),
    log,
  });
  bridge.consume((command) => {
    if (phase === 'ending') return undefined;
    const relayed = relay(command);
    // The hand-over first: nothing else of this sidecar's runs beside the answer a create waits for.
    if (command.method === assignMethod) return relayed;
    void relayed;
    return undefined;
  });

  const graceMs = ms(env.KILL_GRACE_S);
  async function stopGame(reason: EndReason): Promise<GameExit> {
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
      case 'notice-then-terminate':
        // Before it ever spoke, a send would only wait for a peer that is not there.
        if (!socket.peerHeard) return game.terminate(graceMs);
        // graceS: how long it has to exit by itself before the signals start.
        await calls.notify('shutdown', { reason: stopNotice, graceS: noticeWindowMs(graceMs) / 1000 });
        return game.terminate(graceMs, noticeWindowMs(graceMs));
    }
  }

  async function finish(reason: EndReason): Promise<ControllerOutcome> {
    phase = 'ending';
    clearTimeout(spawnTimer);
    health?.stop();
    heartbeat.stop();
    const plan = endPlan(reason);
    log.info('controller ending', { reason, stopGame: plan.stopGame, pid: game.pid });
    const exit = await stopGame(reason);
    calls.cancelAll();
    await bridge.report({ type: 'exited', reason: plan.report, exitCode: exit.code, signal: exit.signal });
    await bridge.close();
    await socket.close();
    releaseSqs();
    const outcome: ControllerOutcome = { reason, exitCode: plan.exitCode, game: exit };
    log.info('controller stopped', {
      reason,
      exitCode: plan.exitCode,
      gameExitCode: exit.code,
      gameSignal: exit.signal,
    });
    return outcome;
  }

  /** The first reason to end wins; later ones (the killed game's own exit) join it. */
  function end(reason: EndReason): Promise<ControllerOutcome> {
    if (!ending) {
      ending = finish(reason).catch((error: unknown) => {
        // Cleanup itself failed: the game must still not outlive the sidecar.
        log.error('controller cleanup failed', { error });
        game.kill();
        return { reason, exitCode: 1, game: { code: null, signal: null } } satisfies ControllerOutcome;
      });
      void ending.then(settleStopped);
    }
    return ending;
  }

  return {
    endpoint: socket.endpoint,
    replyQueueUrl: bridge.replyQueueUrl,
    get gamePid() {
      return game.pid;
    },
    stopped,
    stop: (reason = 'stopped') => {
      stopNotice = reason;
      return end('stopped');
    },
    fail: (error) => {
      log.critical('controller failed; killing the game', { error });
      game.kill();
      return end('fatal');
    },
    killGameNow: () => game.kill(),
  };
}
