import { html, nothing } from 'lit';
import type { ConsoleApi } from '../api';
import { Page, Poller } from '../base';
import { errorText } from '../format';

type Line = Awaited<ReturnType<ConsoleApi['tailLogs']>>['lines'][number];

/** Lines kept on the page: the newest. */
const maxLines = 1000;
const knownFields = new Set(['seq', 'at', 'level', 'message', 'roomId']);

/** Local cloud: the tail of its structured log, optionally one room's. Deployed: where to look instead. */
class LogsPage extends Page {
  static override properties = {
    ...Page.properties,
    roomId: {},
    lines: { state: true },
    problem: { state: true },
  };
  declare roomId: string;
  declare lines: Line[];
  declare problem: string | undefined;
  private cursor: number | undefined;
  private followed: string | undefined;
  private readonly poller = new Poller(this, () => this.load());

  constructor() {
    super();
    this.roomId = '';
    this.lines = [];
  }

  private async load(): Promise<void> {
    if (!this.session.local) return;
    if (this.followed !== this.roomId) {
      this.followed = this.roomId;
      this.cursor = undefined;
      this.lines = [];
    }
    try {
      const answer = await this.api.tailLogs({
        ...(this.roomId ? { roomId: this.roomId } : {}),
        ...(this.cursor !== undefined ? { after: this.cursor } : {}),
      });
      this.cursor = answer.next;
      if (answer.lines.length > 0) this.lines = [...this.lines, ...answer.lines].slice(-maxLines);
      this.problem = undefined;
    } catch (error) {
      this.problem = errorText(error);
    }
  }

  override render() {
    return html`<h1 tabindex="-1">Logs</h1>
      ${this.session.local ? this.tail() : this.deployed()}`;
  }

  private deployed() {
    return html`<p>
      A deployed stack keeps its logs in CloudWatch Logs. To follow one room, run the Logs Insights query of
      <code>docs/operations.md</code> ("One room's log lines") over the stack's log groups, with the room id.
    </p>`;
  }

  private tail() {
    return html`<form class="filters" role="search" aria-label="Filter log lines" @submit=${this.onRoom}>
        <label>Room id<input name="roomId" .value=${this.roomId} autocomplete="off" spellcheck="false" /></label>
        <button type="submit">Follow</button>
      </form>
      ${this.problem ? html`<p role="alert" class="error">${this.problem}</p>` : nothing}
      <p class="counts">
        ${this.lines.length} lines${this.roomId ? html` of room <span class="mono">${this.roomId}</span>` : ''}
      </p>
      <ol class="log" tabindex="0" aria-label="Log lines, oldest first">
        ${this.lines.map(
          (l) =>
            html`<li class="level-${l.level}">
              <time datetime=${l.at}>${new Date(l.at).toLocaleTimeString()}</time>
              <span class="level">${l.level}</span> ${l.message}
              ${l.roomId ? html`<span class="mono small">${l.roomId}</span>` : nothing}
              <span class="mono small">${extraFields(l)}</span>
            </li>`,
        )}
      </ol>`;
  }

  private onRoom(event: SubmitEvent): void {
    event.preventDefault();
    const roomId = String(new FormData(event.target as HTMLFormElement).get('roomId') ?? '').trim();
    location.hash = roomId ? `#/logs/${encodeURIComponent(roomId)}` : '#/logs';
    void this.poller.now();
  }
}

function extraFields(line: Line): string {
  const rest = Object.entries(line).filter(([name]) => !knownFields.has(name));
  return rest.length === 0 ? '' : JSON.stringify(Object.fromEntries(rest));
}

customElements.define('rk-logs-page', LogsPage);
