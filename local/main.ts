// Readable logs in a terminal, JSON everywhere else. Set before any logger is created.
if (process.stdout.isTTY && process.env.POWERTOOLS_DEV === undefined) process.env.POWERTOOLS_DEV = 'true';
process.env.POWERTOOLS_LOG_LEVEL ??= 'INFO';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { tolerateClosedOutput } = require('./process-guards') as typeof import('./process-guards');
tolerateClosedOutput();

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { runCli } = require('./cli') as typeof import('./cli');
void runCli(process.argv);
