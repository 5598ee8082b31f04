import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/free-port';

/**
 * `npm start` as a separate process, as a developer runs it: `node --import tsx
 * local/main.ts` with a configuration file of its own, in its own process group (so it can
 * be stopped and resumed whole). Its sidecars, games and DynamoDB Local are its children.
 */
export interface PlatformProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly apiUrl: string;
  readonly dynamodbEndpoint: string;
  readonly tableName: string;
  output(): string;
  stop(): Promise<number | null>;
}

const root = join(__dirname, '../..');
export const soakGame = { gameId: 'soak', version: '1.0.0', maxPlayers: 8 } as const;

export async function startPlatformProcess(): Promise<PlatformProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'roomkeeper-soak-'));
  const configPath = join(dir, 'roomkeeper.local.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      region: 'local',
      games: [
        {
          gameId: soakGame.gameId,
          version: soakGame.version,
          configuration: {
            binary: join(root, 'containers/sample-game/bin/sample-game'),
            maxPlayers: soakGame.maxPlayers,
            ports: 1,
            spawnTimeoutS: 30,
            reservationTimeoutS: 30,
          },
        },
      ],
    }),
  );
  const port = await freePort();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'local/main.ts', '--port', String(port), '--config', configPath],
    {
      cwd: root,
      detached: true,
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'WARN' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-200_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const apiUrl = `http://127.0.0.1:${port}`;
  const started = Date.now();
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the local cloud exited during start-up:\n${output}`);
    if (Date.now() - started > 90_000) throw new Error(`the local cloud was not ready within 90 s:\n${output}`);
    const dynamodb = /DynamoDB Local (http:\/\/\S+)\s+table (\S+),/.exec(output);
    const healthy = await fetch(`${apiUrl}/health`).then(
      (r) => r.status === 200,
      () => false,
    );
    if (healthy && dynamodb) {
      return {
        child,
        pid: child.pid as number,
        apiUrl,
        dynamodbEndpoint: dynamodb[1] as string,
        tableName: dynamodb[2] as string,
        output: () => output,
        stop: async () => {
          if (child.exitCode !== null) return child.exitCode;
          const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
          process.kill(-(child.pid as number), 'SIGCONT');
          child.kill('SIGTERM');
          const code = await exited;
          rmSync(dir, { recursive: true, force: true });
          return code;
        },
      };
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
