import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { childLogger } from '../core/infra/logger';
import { childEnvironment } from './child-environment';
import { freePort } from './free-port';
import { defaultListenHost, endpointHost } from './listen-address';
import { withParentDeathSignal } from './parent-death';

const log = childLogger('dynamodb-local');

export interface DynamoDbLocal {
  readonly endpoint: string;
  /** The JVM serving now; a supervised restart changes it. */
  readonly pid: number;
  /** `restarting` from the JVM's unexpected death until its successor serves on the same port. */
  /** `restoring`: the JVM serves again, the after-restart steps (table, games) are still running. */
  readonly status: 'up' | 'restoring' | 'restarting' | 'stopped';
  /** Why the last JVM died, while `restarting`. */
  readonly lastExit?: string;
  readonly restarts: number;
  /** Runs after each supervised restart serves again (in memory, it starts empty). */
  onRestart(listener: () => Promise<void>): void;
  /** SIGKILLs the JVM's process group now. Synchronous, so a process 'exit' handler can call it. */
  killNow(): void;
  stop(): Promise<void>;
}

export interface DynamoDbLocalOptions {
  /** Keep the data in this directory instead of memory. */
  readonly dbPath?: string;
  readonly port?: number;
  /**
   * Restart the JVM on the same port whenever it dies without `stop()`. The first restart
   * waits `restartDelayMs` (default 250 ms); failed restarts back off up to 10 s.
   */
  readonly supervise?: boolean | { readonly restartDelayMs?: number };
  /**
   * The address it listens on: 127.0.0.1 unless asked otherwise (it has no authentication).
   * `0.0.0.0` opens it to the network.
   */
  readonly host?: string;
}

class JavaMissingError extends Error {
  override readonly name = 'JavaMissingError';
  constructor() {
    super(
      'DynamoDB Local needs Java 11 or newer, and `java` was not found on PATH. ' +
        'Install a JRE (Debian: `apt-get install openjdk-17-jre-headless`) and try again.',
    );
  }
}

function emulatorDirectory(): string {
  return join(dirname(require.resolve('amplify-dynamodb-simulator/package.json')), 'emulator');
}

/** DynamoDB Local's own jars, for a JVM started on a class of ours. */
function emulatorClassPath(dir: string): string {
  // `*` is expanded by java and javac themselves, not by a shell.
  return [join(dir, 'DynamoDBLocal.jar'), join(dir, 'DynamoDBLocal_lib', '*')].join(delimiter);
}

/** The launcher that gives DynamoDB Local an address to listen on (its jar has no option for it). */
const launcherSource = join(__dirname, 'dynamodb-local-on-host.java');
const launcherClass = 'DynamoDbLocalOnHost';
/** Beside the bundles of containers/build.ts: inside node_modules, never committed. */
const cacheDirectory = join(__dirname, '..', 'node_modules', '.cache', 'roomkeeper');
const execFileAsync = promisify(execFile);
let compiledLauncher: Promise<string | undefined> | undefined;

/**
 * The directory holding the compiled launcher, compiled once per launcher source and
 * DynamoDB Local version with the JVM's own compiler module (about a second of CPU; every
 * start after that runs the class). Undefined when this Java cannot compile it (a runtime
 * without the `jdk.compiler` module): DynamoDB Local then listens on every interface.
 */
function launcherClasses(dir: string): Promise<string | undefined> {
  compiledLauncher ??= compileLauncher(dir);
  return compiledLauncher;
}

async function compileLauncher(dir: string): Promise<string | undefined> {
  const key = createHash('sha256')
    .update(readFileSync(launcherSource))
    .update(readFileSync(join(dir, '..', 'package.json')))
    .digest('hex')
    .slice(0, 16);
  const target = join(cacheDirectory, `dynamodb-local-on-host-${key}`);
  if (existsSync(join(target, `${launcherClass}.class`))) return target;
  let scratch: string | undefined;
  try {
    mkdirSync(cacheDirectory, { recursive: true });
    // Compiled aside and renamed into place: two starts at once never run half a class.
    scratch = mkdtempSync(`${target}.`);
    await execFileAsync(
      'java',
      [
        '-XX:TieredStopAtLevel=1',
        '-XX:+UseSerialGC',
        '--module',
        'jdk.compiler/com.sun.tools.javac.Main',
        '-d',
        scratch,
        '-cp',
        emulatorClassPath(dir),
        launcherSource,
      ],
      { env: childEnvironment() },
    );
    try {
      renameSync(scratch, target);
    } catch {
      // Another start compiled it first.
    }
    if (existsSync(join(target, `${launcherClass}.class`))) return target;
    throw new Error(`${target} holds no ${launcherClass}.class`);
  } catch (error) {
    log.warn(
      'DynamoDB Local will listen on every interface, not only the address asked for: this Java cannot compile ' +
        "the launcher that sets its address (a full JDK, or Debian's openjdk-17-jre-headless, has the jdk.compiler module)",
      { error: error as Error },
    );
    return undefined;
  } finally {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  }
}

function assertJavaAvailable(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore', env: childEnvironment() });
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
}

/**
 * The JVM's own variables besides what every child inherits: DynamoDB Local 1.25 ignores
 * `-disableTelemetry` and reads only this variable, so without it a developer's emulator
 * reports to AWS.
 */
export const dynamoDbLocalOwnEnvironment = { DDB_LOCAL_TELEMETRY: '0' } as const;

async function waitUntilServing(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    maxAttempts: 1,
  });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited during start-up (code ${child.exitCode}).`);
      try {
        // A stopped (not dead) JVM accepts connections and never answers: bound each probe.
        await client.send(new ListTablesCommand({}), { abortSignal: AbortSignal.timeout(2_000) });
        return;
      } catch (error) {
        if (Date.now() > deadline)
          throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms.`, { cause: error });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  } finally {
    client.destroy();
  }
}

/** Ends the whole process group: the JVM takes over a second to exit on SIGTERM. */
function stopProcessGroup(child: ChildProcess, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return resolve();
    const pid = child.pid;
    const kill = (signal: NodeJS.Signals) => {
      try {
        process.kill(-pid, signal);
      } catch {
        // Already gone.
      }
    };
    const forceTimer = setTimeout(() => kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(forceTimer);
      resolve();
    });
    kill('SIGTERM');
  });
}

function killGroupNow(child: ChildProcess): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    // Already gone.
  }
}

interface Launched {
  readonly child: ChildProcess;
  stderr(): string;
}

/**
 * One JVM, in its own process group, killed by the kernel if this process dies. Its
 * environment is explicit and minimal: a JVM restarted while the platform runs must not
 * inherit what the platform's environment holds by then.
 */
function launch(
  dir: string,
  workDir: string,
  port: number,
  dbPath: string | undefined,
  address: { readonly host: string; readonly launcher: string | undefined },
): Launched {
  const storage = dbPath ? ['-dbPath', dbPath] : ['-inMemory'];
  const main = address.launcher
    ? ['-cp', [address.launcher, emulatorClassPath(dir)].join(delimiter), launcherClass, address.host]
    : ['-jar', join(dir, 'DynamoDBLocal.jar')];
  const [command, args] = withParentDeathSignal('java', [
    // A development JVM on a laptop's few cores: the quick compiler only, and the serial
    // collector. The optimizing compiler's threads would compete with the platform, its
    // sidecars and games for the cores, for no gain in latency (docs/benchmarks.md).
    '-XX:TieredStopAtLevel=1',
    '-XX:+UseSerialGC',
    `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
    ...main,
    ...storage,
    '-port',
    String(port),
    '-disableTelemetry',
  ]);
  const child = spawn(command, args, {
    cwd: workDir,
    detached: true,
    env: childEnvironment(dynamoDbLocalOwnEnvironment),
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  // A failed spawn surfaces as the exit check of `waitUntilServing`; never as an unhandled 'error'.
  child.on('error', (error) => {
    stderr += `\n${error.message}`;
  });
  return { child, stderr: () => stderr };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts AWS's DynamoDB Local (the jar bundled in `amplify-dynamodb-simulator`) on a free
 * port of 127.0.0.1 (unless `host` says otherwise), in memory unless `dbPath` is given, in
 * its own process group so it can be ended
 * with everything it started, and under `setpriv --pdeathsig KILL` so it cannot outlive
 * this process. Supervised, a JVM that dies is replaced on the same port: clients keep
 * their endpoint and recover by themselves.
 */
export async function startDynamoDbLocal(options: DynamoDbLocalOptions = {}): Promise<DynamoDbLocal> {
  assertJavaAvailable();
  const dir = emulatorDirectory();
  const [port, launcher] = await Promise.all([options.port ?? freePort(), launcherClasses(dir)]);
  const address = { host: options.host ?? defaultListenHost, launcher };
  // It writes a metadata file into its working directory.
  const workDir = mkdtempSync(join(tmpdir(), 'roomkeeper-ddb-'));
  const endpoint = `http://${endpointHost(address.host)}:${port}`;
  const supervise = options.supervise === true || typeof options.supervise === 'object';
  const restartDelayMs = (typeof options.supervise === 'object' && options.supervise.restartDelayMs) || 250;
  const listeners: (() => Promise<void>)[] = [];
  let current = launch(dir, workDir, port, options.dbPath, address);
  let status: DynamoDbLocal['status'] = 'up';
  let lastExit: string | undefined;
  let restarts = 0;

  const stop = async () => {
    status = 'stopped';
    await stopProcessGroup(current.child, 1500);
    rmSync(workDir, { recursive: true, force: true });
  };

  async function restart(): Promise<void> {
    for (let delay = restartDelayMs; status === 'restarting'; delay = Math.min(delay * 2, 10_000)) {
      await sleep(delay);
      if (status !== 'restarting') return;
      current = launch(dir, workDir, port, options.dbPath, address);
      try {
        await waitUntilServing(endpoint, current.child, 30_000);
      } catch (error) {
        log.warn('DynamoDB Local did not come back; trying again', { error: error as Error, stderr: current.stderr() });
        await stopProcessGroup(current.child, 1000);
        continue;
      }
      if (status !== 'restarting') return;
      status = 'restoring';
      lastExit = undefined;
      restarts++;
      watch(current.child);
      log.info('DynamoDB Local restarted', { endpoint, pid: current.child.pid, restarts });
      for (const listener of listeners)
        await listener().catch((error: unknown) => log.error('after-restart step failed', { error: error as Error }));
      // Healthy only once the table and the games are back, not merely the JVM.
      if (status === 'restoring') status = 'up';
    }
  }

  function watch(child: ChildProcess): void {
    child.once('exit', (code, signal) => {
      if ((status !== 'up' && status !== 'restoring') || child !== current.child) return;
      lastExit = signal ? `killed by ${signal}` : `exited with code ${code}`;
      status = 'restarting';
      log.warn('DynamoDB Local died; restarting it on the same port', { endpoint, lastExit });
      void restart();
    });
  }

  try {
    await waitUntilServing(endpoint, current.child, 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${current.stderr()}`.trim(), { cause: error });
  }
  if (supervise) watch(current.child);
  return {
    endpoint,
    get pid() {
      return current.child.pid ?? -1;
    },
    get status() {
      return status;
    },
    get lastExit() {
      return lastExit;
    },
    get restarts() {
      return restarts;
    },
    onRestart: (listener) => void listeners.push(listener),
    killNow: () => killGroupNow(current.child),
    stop,
  };
}
