import { Command, InvalidArgumentError } from 'commander';
import { logger } from '../core/infra/logger';
import { CorsOriginInvalidError, parseCorsOrigins } from '../lambdas/http/cors';
import { startLocalCloud, type LocalCloud } from './cloud';
import { defaultConfigPath } from './config-file';
import { watchParent } from './process-guards';

const shutdownDeadlineMs = 4_500;

function portOption(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535)
    throw new InvalidArgumentError('must be a port number (0–65535).');
  return port;
}

function hostCount(value: string): number {
  const count = Number(value);
  if (!Number.isInteger(count) || count < 1 || count > 32)
    throw new InvalidArgumentError('must be a whole number from 1 to 32.');
  return count;
}

function corsOrigins(value: string): string[] {
  try {
    return parseCorsOrigins(value, '--cors-origins');
  } catch (error) {
    if (error instanceof CorsOriginInvalidError) throw new InvalidArgumentError(error.message);
    throw error;
  }
}

function banner(cloud: LocalCloud, startedInMs: number): string {
  const games = cloud.config.games.map((g) => `${g.gameId}@${g.version}`).join(', ') || 'none';
  return [
    '',
    `Roomkeeper local cloud is ready in ${(startedInMs / 1000).toFixed(1)} s`,
    '',
    `  API            ${cloud.apiUrl}   (health: ${cloud.apiUrl}/health)`,
    `  Live sockets   ${cloud.liveUrl}?token=<access token>`,
    `  DynamoDB Local ${cloud.dynamodb.endpoint}   table ${cloud.tableName}, pid ${cloud.dynamodb.pid}`,
    `  SQS emulator   ${cloud.sqs.endpoint}   ${Object.keys(cloud.sqs.queueUrls).length} queues`,
    `  Games          ${games}`,
    `  CORS origins   ${cloud.corsOrigins.join(', ') || 'none (browsers on other origins are refused)'}`,
    `  Hosts          ${Object.entries(cloud.hostIds)
      .map(([region, hosts]) => `${region}: ${hosts.join(', ') || 'none'}`)
      .join('; ')}`,
    '',
    `  Get a token:   curl -s -XPOST ${cloud.apiUrl}/v1/dev/tokens -d '{"account":"alice"}'`,
    '',
    'Ctrl-C (or SIGTERM, SIGHUP, or the end of the process that started it) stops everything.',
    '',
  ].join('\n');
}

export async function runCli(argv: string[]): Promise<void> {
  const program = new Command()
    .name('roomkeeper-local')
    .description('Run the whole Roomkeeper platform on this machine.')
    .option('-p, --port <port>', 'HTTP port of the API', portOption, Number(process.env.PORT ?? 3000))
    .option('-c, --config <file>', 'local configuration file', process.env.ROOMKEEPER_CONFIG ?? defaultConfigPath)
    .option('--persist <dir>', 'keep DynamoDB data in this directory instead of memory')
    .option('--hosts <n>', 'local hosts (local-1 … local-N) when the config file declares no regions', hostCount, 1)
    .option(
      '--cors-origins <list>',
      "origins browsers may call the API from, comma-separated, or * (replaces the config file's cors)",
      corsOrigins,
    )
    .parse(argv);
  const options = program.opts<{
    port: number;
    config: string;
    persist?: string;
    hosts: number;
    corsOrigins?: string[];
  }>();
  if (options.corsOrigins === undefined && process.env.ROOMKEEPER_CORS_ORIGINS !== undefined) {
    try {
      options.corsOrigins = parseCorsOrigins(process.env.ROOMKEEPER_CORS_ORIGINS, 'ROOMKEEPER_CORS_ORIGINS');
    } catch (error) {
      program.error(`error: ${(error as Error).message}`);
    }
  }

  const startedAt = Date.now();
  let cloud: LocalCloud | undefined;
  let starting: Promise<LocalCloud> | undefined;
  let stopping = false;
  /**
   * Stops once, whatever asks first. Later signals (Ctrl-C reaches us from the terminal and
   * again from npm; a group SIGTERM likewise) must not cut the stop short, or DynamoDB Local
   * outlives us. The deadline exits anyway; the 'exit' hook below
   * SIGKILLs whatever is left.
   */
  const stop = async (reason: string, exitCode: number) => {
    if (stopping) {
      logger.info('already stopping', { reason });
      return;
    }
    stopping = true;
    logger.info('stopping the local cloud', { reason });
    const force = setTimeout(() => {
      logger.warn('shutdown deadline reached; exiting');
      process.exit(exitCode);
    }, shutdownDeadlineMs);
    force.unref();
    const running = cloud ?? (await starting?.catch(() => undefined));
    await running?.stop().catch((error: unknown) => logger.error('stop failed', { error: error as Error }));
    clearTimeout(force);
    process.exit(exitCode);
  };
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.on(signal, () => void stop(signal, 0));
  process.on('uncaughtException', (error) => {
    logger.error('uncaught exception', { error });
    void stop('uncaughtException', 1);
  });
  process.on('exit', () => cloud?.killNow());
  watchParent((formerParent) => void stop(`parent process ${formerParent} exited`, 0));

  try {
    starting = startLocalCloud({
      port: options.port,
      configPath: options.config,
      persistDir: options.persist,
      hosts: options.hosts,
      corsOrigins: options.corsOrigins,
    });
    cloud = await starting;
  } catch (error) {
    process.stderr.write(`\nThe local cloud could not start: ${(error as Error).message}\n`);
    await stop('start-up failed', 1);
    return;
  }
  // A signal during start-up is already stopping it.
  if (stopping) return;
  process.stdout.write(banner(cloud, Date.now() - startedAt));
  logger.info('local cloud ready', {
    apiUrl: cloud.apiUrl,
    dynamodb: cloud.dynamodb.endpoint,
    sqs: cloud.sqs.endpoint,
  });
}
