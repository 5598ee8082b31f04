// The SQS emulator in a process of its own, as SQS is a service of its own in AWS: the
// platform's event loop serves the platform, not both ends of every queue request.
// Prints the port it serves on as one line, then serves until SIGTERM or until its parent
// closes its stdin (the parent died).
import { startFauxqs } from 'fauxqs';

const port = Number(process.argv[2] ?? 0);
const server = await startFauxqs({ port, logger: false, host: '127.0.0.1' });
process.stdout.write(`${server.port}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => undefined);
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
process.once('SIGINT', () => void stop());
process.stdin.on('end', () => void stop());
process.stdin.resume();
