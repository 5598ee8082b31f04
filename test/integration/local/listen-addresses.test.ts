import { readFileSync } from 'node:fs';
import { emulatorEndpoints } from '../../helpers/platform';
import { startSqsEmulator } from '../../../local/sqs-emulator';

/**
 * Issue 27: DynamoDB Local and the SQS emulator take no credentials, so they listen on
 * 127.0.0.1 unless asked otherwise. Read from the kernel's socket tables: every socket
 * listening on the emulator's port, IPv4 and IPv6.
 */

/** `0100007F` (a little-endian 32-bit word of /proc/net/tcp*) → its four bytes in order. */
const wordBytes = (hex: string) => (hex.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16));

/** The local addresses of the sockets listening on `port` (`127.0.0.1`, `::ffff:127.0.0.1`, `0.0.0.0`, `::`, …). */
function listeningAddresses(port: number): string[] {
  const found: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (!local || state !== '0A') continue; // 0A: LISTEN
      const [addressHex = '', portHex = ''] = local.split(':');
      if (parseInt(portHex, 16) !== port) continue;
      const bytes = (addressHex.match(/.{8}/g) ?? []).flatMap(wordBytes);
      if (bytes.length === 4) found.push(bytes.join('.'));
      else if (bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff)
        found.push(`::ffff:${bytes.slice(12).join('.')}`);
      else if (bytes.every((b) => b === 0)) found.push('::');
      else if (bytes.slice(0, 15).every((b) => b === 0) && bytes[15] === 1) found.push('::1');
      else found.push(bytes.map((b) => b.toString(16).padStart(2, '0')).join(''));
    }
  }
  return found;
}

const loopback = new Set(['127.0.0.1', '::ffff:127.0.0.1', '::1']);
const portOf = (endpoint: string) => Number(new URL(endpoint).port);

describe('the local emulators listen on this machine only', () => {
  it.each([
    ['DynamoDB Local', () => emulatorEndpoints().dynamodb],
    ['the SQS emulator', () => emulatorEndpoints().sqs],
  ])('%s, as the local cloud and the tests start it, listens on 127.0.0.1 alone', (_, endpoint) => {
    const addresses = listeningAddresses(portOf(endpoint()));
    process.stdout.write(`${endpoint()}: listening on ${addresses.join(', ')}\n`);
    expect(addresses.length).toBeGreaterThan(0);
    expect(addresses.filter((a) => !loopback.has(a))).toEqual([]);
  });

  it('the SQS emulator listens on every interface only when asked to', async () => {
    const open = await startSqsEmulator({ host: '0.0.0.0' });
    try {
      expect(listeningAddresses(portOf(open.endpoint))).toEqual(['0.0.0.0']);
      expect(open.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    } finally {
      await open.stop();
    }
  });
});
