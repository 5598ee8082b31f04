/**
 * Where the local cloud's own services listen unless asked otherwise: this machine only.
 * DynamoDB Local and the SQS emulator take no credentials; on any other address anyone on
 * the developer's network could read and write the platform's table and queues.
 */
export const defaultListenHost = '127.0.0.1';

/** The address a client on this machine reaches a service listening on `host` at, for a URL. */
export function endpointHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
