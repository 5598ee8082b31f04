import { consoleConfigSchema, type ConsoleConfig } from '../../lambdas/http/console/config-schema';
import { ApiError, createRoomkeeperClient, type RoomkeeperClient } from '../../client/index';

/** Where a deployed console keeps the operator's token: this tab only, gone when it closes. */
const tokenKey = 'roomkeeper.console.token';
/** Renew the local token this long before it expires. */
const renewMarginMs = 60_000;

/**
 * How the console signs in and reaches the API. The local cloud's `config.json` carries an
 * admin token (renewed before it expires); deployed, the operator pastes one, kept in
 * sessionStorage. The API is the console's own origin: it is served by the same API.
 */
export class Session {
  private config: ConsoleConfig = { local: false };
  private localToken?: { value: string; expiresAt: number };
  readonly client: RoomkeeperClient;

  constructor(readonly baseUrl: string = location.origin) {
    this.client = createRoomkeeperClient({ baseUrl, token: () => this.token() });
  }

  /** Reads config.json; true when the console can call the API now (local, or a token kept). */
  async start(): Promise<boolean> {
    await this.loadConfig();
    return this.signedIn;
  }

  get local(): boolean {
    return this.config.local;
  }

  get signedIn(): boolean {
    return this.config.local ? this.localToken !== undefined : sessionStorage.getItem(tokenKey) !== null;
  }

  /** The live socket: config.json's, else this origin's `/v1/live` (the local cloud's own). */
  get liveUrl(): string {
    return this.config.liveUrl ?? `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/v1/live`;
  }

  signIn(token: string): void {
    sessionStorage.setItem(tokenKey, token.trim().replace(/^Bearer\s+/i, ''));
  }

  signOut(): void {
    sessionStorage.removeItem(tokenKey);
  }

  async token(): Promise<string> {
    if (!this.config.local) return sessionStorage.getItem(tokenKey) ?? '';
    if (!this.localToken || this.localToken.expiresAt - renewMarginMs < Date.now()) await this.loadConfig();
    return this.localToken?.value ?? '';
  }

  private async loadConfig(): Promise<void> {
    const response = await fetch(new URL('/console/config.json', this.baseUrl), { cache: 'no-store' });
    if (!response.ok) throw ApiError.from(response, await response.json().catch(() => undefined));
    this.config = consoleConfigSchema.parse(await response.json());
    if (this.config.token) {
      this.localToken = { value: this.config.token, expiresAt: Date.now() + (this.config.expiresIn ?? 3600) * 1000 };
    }
  }
}
