import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { freePort } from './free-port';

export interface DynamoDbLocal {
  readonly endpoint: string;
  readonly pid: number;
  stop(): Promise<void>;
}

export class JavaMissingError extends Error {
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

function assertJavaAvailable(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
}

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
        await client.send(new ListTablesCommand({}));
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

/**
 * Starts AWS's DynamoDB Local (the jar bundled in `amplify-dynamodb-simulator`) on a free
 * port, in memory unless `dbPath` is given, in its own process group so it can be ended
 * with everything it started.
 */
export async function startDynamoDbLocal(options: { dbPath?: string; port?: number } = {}): Promise<DynamoDbLocal> {
  assertJavaAvailable();
  const dir = emulatorDirectory();
  const port = options.port ?? (await freePort());
  // It writes a metadata file into its working directory.
  const workDir = mkdtempSync(join(tmpdir(), 'roomkeeper-ddb-'));
  const storage = options.dbPath ? ['-dbPath', options.dbPath] : ['-inMemory'];
  const child = spawn(
    'java',
    [
      `-Djava.library.path=${join(dir, 'DynamoDBLocal_lib')}`,
      '-jar',
      join(dir, 'DynamoDBLocal.jar'),
      ...storage,
      '-port',
      String(port),
      '-disableTelemetry',
    ],
    { cwd: workDir, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const endpoint = `http://127.0.0.1:${port}`;
  const stop = async () => {
    await stopProcessGroup(child, 1500);
    rmSync(workDir, { recursive: true, force: true });
  };
  try {
    await waitUntilServing(endpoint, child, 30_000);
  } catch (error) {
    await stop();
    throw new Error(`${(error as Error).message}\n${stderr}`.trim(), { cause: error });
  }
  return { endpoint, pid: child.pid ?? -1, stop };
}
