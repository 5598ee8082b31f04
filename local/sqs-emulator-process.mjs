// The SQS emulator in a process of its own, as SQS is a service of its own in AWS: the
// platform's event loop serves the platform, not both ends of every queue request.
// Prints the port it serves on as one line, then serves until SIGTERM or until its parent
// closes its stdin (the parent died).
//
//   node sqs-emulator-process.mjs <port, 0: any free one> [<address to listen on, default 127.0.0.1>]
//
// fauxqs' own `startFauxqs` always listens on 0.0.0.0: anyone on the developer's network
// could read and write the platform's queues, unauthenticated. Its app is built the same way
// here and listens on the address asked for.
import { buildApp } from 'fauxqs';

const port = Number(process.argv[2] ?? 0);
const listenOn = process.argv[3] ?? '127.0.0.1';
// `host` names the queue URLs' host, as `startFauxqs` passes it.
const app = buildApp({ logger: false, host: '127.0.0.1' });
await app.listen({ port, host: listenOn });
const server = { port: app.server.address().port, stop: () => app.close() };
process.stdout.write(`${server.port}\n`);

let stopping = false;
const stop = async () => {
  if (stopping) return;
  stopping = true;
  await server.stop().catch(() => undefined);
  process.exit(0);
};
process.once('SIGTERM', () => void stop());
// Ctrl-C (and a closing terminal's SIGHUP) reach every process of the terminal's foreground
// group at once, this one included: the platform then stops its game servers, whose sidecars
// still report to the platform and delete their queues here. The parent stops this process
// (SIGTERM) after them, and its death ends it anyway (stdin, --pdeathsig).
process.on('SIGINT', () => undefined);
process.on('SIGHUP', () => undefined);
process.stdin.on('end', () => void stop());
process.stdin.resume();
