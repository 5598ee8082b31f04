import { isIP } from 'node:net';

/**
 * Whether a request's `Host` may reach the local cloud. A web page the developer visits can
 * point its own DNS name at 127.0.0.1 (DNS rebinding) and then call the local cloud as its own
 * origin: mint admin tokens, put a configuration whose binary runs on the machine. Browsers
 * send the page's name as `Host`, so only names that cannot be rebound pass: IP literals,
 * `localhost` and its subdomains, and the names a developer lists in `ROOMKEEPER_ALLOWED_HOSTS`
 * (for a LAN name of the machine). A request without `Host` comes from no browser.
 */
export function isAllowedHost(host: string | undefined, allowed: readonly string[] = []): boolean {
  if (host === undefined || host === '') return true;
  const name = hostnameOf(host.toLowerCase());
  if (name === undefined) return false;
  if (isIP(name) !== 0) return true;
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return allowed.some((entry) => entry.toLowerCase() === name);
}

/** `example.com:3000` → `example.com`; `[::1]:3000` → `::1`; undefined for anything malformed. */
function hostnameOf(host: string): string | undefined {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end > 0 ? host.slice(1, end) : undefined;
  }
  const [name, port, extra] = host.split(':');
  if (extra !== undefined || name === undefined || name === '') return undefined;
  if (port !== undefined && !/^\d{1,5}$/.test(port)) return undefined;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

/** `ROOMKEEPER_ALLOWED_HOSTS`: comma-separated host names besides IP literals and localhost. */
export function allowedHostsOf(env: NodeJS.ProcessEnv): string[] {
  return (env.ROOMKEEPER_ALLOWED_HOSTS ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
}
