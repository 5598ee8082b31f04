import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import * as z from 'zod';
import {
  ApiError,
  ConnectionError,
  createRoomkeeperClient,
  dataOf,
  openLiveSocket,
  type LiveServerFrame,
  type LiveSocket,
  type RoomkeeperClient,
} from '../client';

/** What the CLI touches outside its arguments. */
export interface CliIo {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly env: NodeJS.ProcessEnv;
  readonly now: () => Date;
  /** Whether stderr is a terminal: progress is drawn only there. */
  readonly stderrIsTTY: boolean;
  /** Aborts when the user interrupts (Ctrl-C): long commands stop and the CLI exits 130. */
  readonly signal: AbortSignal;
}

/** A bad input: one line on stderr and exit code 2. */
export class UsageError extends Error {}

/** The documented exit codes (docs/cli.md). */
export const exitCodes = { ok: 0, apiError: 1, usage: 2, unreachable: 3, interrupted: 130 } as const;

/** The options every command takes (set on the root command). */
export interface GlobalOptions {
  readonly url?: string;
  readonly profile?: string;
  readonly json?: boolean;
}

const profilesSchema = z.record(
  z.string(),
  z.strictObject({ url: z.url().optional(), token: z.string().min(1).optional() }),
);

/** `~/.config/roomkeeper/profiles.json` (XDG_CONFIG_HOME honoured). */
function profilesPath(env: NodeJS.ProcessEnv): string {
  const config = env.XDG_CONFIG_HOME !== undefined && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : undefined;
  return join(config ?? join(env.HOME ?? homedir(), '.config'), 'roomkeeper', 'profiles.json');
}

async function profileOf(name: string, env: NodeJS.ProcessEnv): Promise<{ url?: string; token?: string }> {
  const path = profilesPath(env);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    throw new UsageError(`--profile ${name}: cannot read ${path}`);
  }
  let parsed: z.infer<typeof profilesSchema>;
  try {
    parsed = profilesSchema.parse(JSON.parse(text));
  } catch (error) {
    throw new UsageError(`${path}: not { "<name>": { "url", "token" } }: ${(error as Error).message}`);
  }
  const profile = parsed[name];
  if (profile === undefined) throw new UsageError(`--profile ${name}: no such profile in ${path}`);
  return profile;
}

/** The local cloud's own address, where the CLI may mint itself an admin token. */
function isLoopback(url: string): boolean {
  const host = new URL(url).hostname;
  return host === 'localhost' || host === '[::1]' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

/** Where the CLI talks, and as whom. */
export interface Target {
  readonly url: string;
  readonly client: RoomkeeperClient;
  /** The bearer token (minted once, on first use, against the local cloud). */
  readonly token: () => Promise<string>;
}

/** The account a token minted against the local cloud names: operators' writes show who made them. */
const cliAccount = 'roomkeeper-cli';

async function mintLocalToken(url: string, signal: AbortSignal): Promise<string> {
  const client = createRoomkeeperClient({ baseUrl: url });
  const result = await client.POST('/v1/dev/tokens', {
    body: { account: cliAccount, scopes: ['admin'], ttlS: 3600 },
    signal,
  });
  return dataOf(result).access_token;
}

/**
 * The API's URL: `--url`, else the `--profile`'s, else ROOMKEEPER_URL, else the local cloud.
 * The token: ROOMKEEPER_TOKEN, else the profile's (only ever sent to the profile's own origin),
 * else (a loopback URL only) one minted from the local cloud's `POST /v1/dev/tokens`. A token
 * never crosses the network in clear text: plain `http:` only to a loopback address.
 */
export async function targetOf(options: GlobalOptions, io: CliIo): Promise<Target> {
  const profile = options.profile !== undefined ? await profileOf(options.profile, io.env) : {};
  const env = (name: string) => (io.env[name] !== undefined && io.env[name] !== '' ? io.env[name] : undefined);
  const url = options.url ?? profile.url ?? env('ROOMKEEPER_URL') ?? `http://127.0.0.1:${env('PORT') ?? '3000'}`;
  const origin = originOf(url, '--url');
  const given = env('ROOMKEEPER_TOKEN') ?? profileTokenFor(profile, origin, options.profile);
  if (given !== undefined && new URL(url).protocol === 'http:' && !isLoopback(url))
    throw new UsageError(`refusing to send a token to ${url} over plain http: use https (see docs/cli.md)`);
  let minted: Promise<string> | undefined;
  const token = async (): Promise<string> => {
    if (given !== undefined) return given;
    if (!isLoopback(url))
      throw new UsageError(`no token for ${url}: set ROOMKEEPER_TOKEN or use --profile (see docs/cli.md)`);
    minted ??= mintLocalToken(url, io.signal);
    return minted;
  };
  return { url, token, client: createRoomkeeperClient({ baseUrl: url, token }) };
}

function originOf(url: string, what: string): string {
  try {
    return new URL(url).origin;
  } catch {
    throw new UsageError(`${what}: "${url}" is not a URL`);
  }
}

/** A profile's token, for its own URL's origin only: a `--url` elsewhere must not receive it. */
function profileTokenFor(
  profile: { url?: string; token?: string },
  origin: string,
  name: string | undefined,
): string | undefined {
  if (profile.token === undefined) return undefined;
  if (profile.url === undefined || originOf(profile.url, `profile ${name ?? ''} url`) !== origin)
    throw new UsageError(`profile ${name ?? ''}'s token is for ${profile.url ?? 'no url'}, not ${origin}`);
  return profile.token;
}

/** The live socket as this target's caller, through `ws` (any Node the CLI runs on, global WebSocket or not). */
export function liveSocketOf(target: Target, onFrame: (frame: LiveServerFrame) => void): Promise<LiveSocket> {
  return openLiveSocket({
    baseUrl: target.url,
    token: target.token,
    onFrame,
    WebSocket: WebSocket as unknown as typeof globalThis.WebSocket,
  });
}

/** An API call's data, or its ApiError thrown (exit code 1). */
export async function call<D>(result: Promise<{ data?: D; error?: unknown; response: Response }>): Promise<D> {
  return dataOf(await result);
}

/** The exit code of an error a command threw, with its line on stderr. */
export function exitCodeOf(error: unknown, io: CliIo): number {
  if (io.signal.aborted) return exitCodes.interrupted;
  if (error instanceof ApiError) {
    io.stderr(`roomkeeper: ${error.code} (${error.status}): ${error.message}\n`);
    if (error.details !== undefined) io.stderr(`${JSON.stringify(error.details, null, 2)}\n`);
    return exitCodes.apiError;
  }
  if (error instanceof ConnectionError) {
    io.stderr(`roomkeeper: ${error.message}\n`);
    return exitCodes.unreachable;
  }
  if (error instanceof UsageError) {
    io.stderr(`roomkeeper: ${error.message}\n`);
    return exitCodes.usage;
  }
  throw error;
}
