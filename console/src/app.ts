import { html, nothing } from 'lit';
import { consoleApi, type ConsoleApi } from './api';
import { LightElement } from './base';
import { errorText } from './format';
import { parseRoute, sections, type Route } from './router';
import { Session } from './session';
import './pages/rooms-page';
import './pages/room-page';
import './pages/servers-page';
import './pages/queues-page';
import './pages/catalog-page';
import './pages/logs-page';

/** The console's frame: sign-in, the sections' navigation, and the page of the current route. */
class RoomkeeperApp extends LightElement {
  static override properties = {
    route: { state: true },
    ready: { state: true },
    signedIn: { state: true },
    problem: { state: true },
  };
  declare route: Route;
  declare ready: boolean;
  declare signedIn: boolean;
  declare problem: string | undefined;
  private readonly session = new Session();
  private readonly api: ConsoleApi = consoleApi(this.session.client);
  private readonly onHash = () => {
    this.route = parseRoute(location.hash);
    // The new page's heading takes focus, so a keyboard or screen reader user lands on it.
    void this.updateComplete.then(() => this.querySelector<HTMLElement>('main h1')?.focus());
  };

  constructor() {
    super();
    this.route = parseRoute(location.hash);
    this.ready = false;
    this.signedIn = false;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    window.addEventListener('hashchange', this.onHash);
    this.session.start().then(
      (signedIn) => ((this.signedIn = signedIn), (this.ready = true)),
      (error: unknown) => ((this.problem = errorText(error)), (this.ready = true)),
    );
  }

  override disconnectedCallback(): void {
    window.removeEventListener('hashchange', this.onHash);
    super.disconnectedCallback();
  }

  override render() {
    const current = this.route.page === 'room' ? 'rooms' : this.route.page;
    return html`<a class="skip" href="#main" @click=${this.skip}>Skip to content</a>
      <header>
        <span class="brand">Roomkeeper</span>
        <nav aria-label="Sections">
          ${sections.map(
            (s) => html`<a href="#/${s.page}" aria-current=${s.page === current ? 'page' : nothing}>${s.label}</a>`,
          )}
        </nav>
        ${
          this.signedIn && !this.session.local
            ? html`<button type="button" class="link" @click=${this.signOut}>Sign out</button>`
            : this.session.local
              ? html`<span class="badge">local cloud</span>`
              : nothing
        }
      </header>
      <main id="main" tabindex="-1">${this.body()}</main>`;
  }

  private body() {
    if (!this.ready) return html`<p role="status">Loading…</p>`;
    if (this.problem) return html`<p role="alert" class="error">The console cannot start: ${this.problem}</p>`;
    if (!this.signedIn) return this.signInForm();
    const { api, session } = this;
    switch (this.route.page) {
      case 'rooms':
        return html`<rk-rooms-page .api=${api} .session=${session}></rk-rooms-page>`;
      case 'room':
        return html`<rk-room-page .api=${api} .session=${session} .roomId=${this.route.roomId}></rk-room-page>`;
      case 'servers':
        return html`<rk-servers-page .api=${api} .session=${session}></rk-servers-page>`;
      case 'queues':
        return html`<rk-queues-page .api=${api} .session=${session}></rk-queues-page>`;
      case 'catalog':
        return html`<rk-catalog-page .api=${api} .session=${session}></rk-catalog-page>`;
      case 'logs':
        return html`<rk-logs-page .api=${api} .session=${session} .roomId=${this.route.roomId ?? ''}></rk-logs-page>`;
    }
  }

  private signInForm() {
    return html`<h1 tabindex="-1">Sign in</h1>
      <p>
        This console uses the admin API. Paste an access token of your identity provider that carries the
        <code>admin</code> scope; it is kept in this tab only.
      </p>
      <form class="sign-in" @submit=${this.signIn}>
        <label for="token">Admin access token</label>
        <textarea id="token" name="token" required rows="4" autocomplete="off" spellcheck="false"></textarea>
        <button type="submit">Sign in</button>
      </form>`;
  }

  private signIn(event: SubmitEvent): void {
    event.preventDefault();
    const token = new FormData(event.target as HTMLFormElement).get('token');
    if (typeof token !== 'string' || token.trim() === '') return;
    this.session.signIn(token);
    this.signedIn = true;
  }

  private signOut(): void {
    this.session.signOut();
    this.signedIn = false;
  }

  private skip(event: Event): void {
    event.preventDefault();
    this.querySelector<HTMLElement>('main')?.focus();
  }
}

customElements.define('rk-app', RoomkeeperApp);
