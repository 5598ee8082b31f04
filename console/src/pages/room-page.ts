import { html, nothing } from 'lit';
import { openLiveSocket, type LiveServerFrame, type LiveSocket } from '../../../client/index';
import type { RoomView } from '../api';
import { confirmAction, Page, Poller } from '../base';
import { countdown, errorText, json } from '../format';
import { logsHref } from '../router';

type Member = NonNullable<RoomView['members']>[number] & { readonly expiresAt?: string };
interface TapLine {
  readonly at: Date;
  readonly text: string;
}

/** Taps kept on the page: the newest first. */
const maxTaps = 50;
/** A read every few seconds besides the taps: a member's slot expiring is judged on read, no write taps it. */
const fallbackReadMs = 5_000;
/** The live socket closes after 10 idle minutes (docs/live.md): a ping well within keeps it. */
const pingEveryMs = 4 * 60_000;

/** One room: what the platform knows of it, its members' countdowns, its taps live, and the admin actions. */
class RoomPage extends Page {
  static override properties = {
    ...Page.properties,
    roomId: {},
    room: { state: true },
    taps: { state: true },
    live: { state: true },
    problem: { state: true },
    notice: { state: true },
    now: { state: true },
  };
  declare roomId: string;
  declare room: RoomView | undefined;
  declare taps: TapLine[];
  declare live: 'connecting' | 'following' | 'closed';
  declare problem: string | undefined;
  declare notice: string | undefined;
  declare now: number;
  private socket: LiveSocket | undefined;
  private clock: ReturnType<typeof setInterval> | undefined;
  private pinger: ReturnType<typeof setInterval> | undefined;
  private connected = false;
  private readonly poller = new Poller(this, () => this.load(), fallbackReadMs);

  constructor() {
    super();
    this.taps = [];
    this.live = 'connecting';
    this.now = Date.now();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.connected = true;
    // The countdowns tick every second; a member whose slot just ran out is read again.
    this.clock = setInterval(() => this.tick(), 1000);
    void this.follow();
  }

  override disconnectedCallback(): void {
    this.connected = false;
    clearInterval(this.clock);
    clearInterval(this.pinger);
    this.socket?.close();
    super.disconnectedCallback();
  }

  private tick(): void {
    const before = this.now;
    this.now = Date.now();
    const expired = (this.room?.members as Member[] | undefined)?.some((m) => {
      const at = m.expiresAt ? Date.parse(m.expiresAt) : NaN;
      return at > before && at <= this.now;
    });
    if (expired) void this.poller.now();
  }

  private async load(): Promise<void> {
    try {
      this.room = await this.api.getRoom(this.roomId);
      this.problem = undefined;
    } catch (error) {
      this.problem = errorText(error);
    }
  }

  /** Subscribes as admin on the live socket; each tap reads the room again. Reconnects while shown. */
  private async follow(): Promise<void> {
    this.live = 'connecting';
    try {
      const socket = await openLiveSocket({
        liveUrl: this.session.liveUrl,
        token: () => this.session.token(),
        onFrame: (frame) => this.onFrame(frame),
      });
      if (!this.connected) return socket.close();
      this.socket = socket;
      socket.subscribe(this.roomId, this.room ? { since: this.room.changeNumber } : {});
      this.pinger = setInterval(() => socket.ping(), pingEveryMs);
      await socket.closed;
      clearInterval(this.pinger);
    } catch {
      // Unreachable or refused: try again below.
    }
    this.live = 'closed';
    if (this.connected) setTimeout(() => this.connected && void this.follow(), 3_000);
  }

  private onFrame(frame: LiveServerFrame): void {
    if (frame.type === 'pong') return;
    if (frame.type === 'subscribed') this.live = 'following';
    const detail =
      frame.type === 'tap'
        ? `change ${frame.changeNumber}: ${frame.changes.join(', ')}`
        : frame.type === 'ended'
          ? `subscription ended: ${frame.reason}`
          : frame.type === 'error'
            ? `${frame.code}: ${frame.message}`
            : frame.type;
    this.taps = [{ at: new Date(), text: detail }, ...this.taps].slice(0, maxTaps);
    if (frame.type === 'tap' || frame.type === 'ended') void this.poller.now();
  }

  override render() {
    const room = this.room;
    return html`<p class="crumbs"><a href="#/rooms">Rooms</a> / <span class="mono">${this.roomId}</span></p>
      <h1 tabindex="-1">Room <span class="mono">${this.roomId}</span></h1>
      ${this.problem ? html`<p role="alert" class="error">${this.problem}</p>` : nothing}
      ${this.notice ? html`<p role="status" class="notice">${this.notice}</p>` : nothing}
      ${room ? this.details(room) : this.problem ? nothing : html`<p role="status">Loading…</p>`}`;
  }

  private details(room: RoomView) {
    const ended = room.state === 'closed' || room.state === 'failed';
    return html`<section aria-labelledby="summary-heading">
        <h2 id="summary-heading">Summary</h2>
        <dl class="facts">
          <dt>State</dt>
          <dd><span class="state state-${room.state}" data-testid="room-state">${room.state}</span></dd>
          ${
            room.failureReason
              ? html`<dt>Failure reason</dt>
                  <dd>${room.failureReason}</dd>`
              : nothing
          }
          <dt>Game</dt>
          <dd>${room.gameId ? `${room.gameId} ${room.version}` : 'peer-hosted (no server)'}</dd>
          <dt>Region</dt>
          <dd>${room.region}</dd>
          <dt>Template</dt>
          <dd>${room.template ?? 'default'}</dd>
          <dt>Players</dt>
          <dd>${room.players} / ${room.maxPlayers}</dd>
          <dt>Change number</dt>
          <dd data-testid="change-number">${room.changeNumber}</dd>
          <dt>Host</dt>
          <dd>${this.hostText(room)}</dd>
          <dt>Server</dt>
          <dd class="mono">${room.server ? `${room.server.host} ports ${room.server.ports.join(', ')}` : '—'}</dd>
        </dl>
        <div class="actions">
          <button type="button" class="danger" ?disabled=${ended} @click=${this.closeRoom}>Close room</button>
          <a href=${logsHref(room.roomId)}>Log lines of this room</a>
        </div>
      </section>
      ${this.members(room)}
      <section aria-labelledby="properties-heading">
        <h2 id="properties-heading">Properties</h2>
        <p>Joinability: <strong>${room.properties.joinability}</strong></p>
        <pre class="json" tabindex="0" aria-label="Custom properties">${json(room.properties.custom)}</pre>
        <details>
          <summary>Constants and settings</summary>
          <pre class="json" tabindex="0">${json({ constants: room.constants, settings: room.settings })}</pre>
        </details>
      </section>
      ${this.tapList()}`;
  }

  private hostText(room: RoomView): string {
    const host = room.host;
    if (!host) return '—';
    const who = host.account ?? (host.address ? `game server ${host.address}` : 'the game server');
    return `${who}, epoch ${host.epoch}${host.next ? `, next ${host.next}` : ''}`;
  }

  private members(room: RoomView) {
    const members = (room.members ?? []) as Member[];
    return html`<section aria-labelledby="members-heading">
      <h2 id="members-heading">Members (${members.length})</h2>
      ${
        members.length === 0
          ? html`<p>No member.</p>`
          : html`<div class="scroll">
              <table class="members">
                <thead>
                  <tr>
                    <th scope="col">Account</th>
                    <th scope="col">State</th>
                    <th scope="col">Expires</th>
                    <th scope="col">Properties</th>
                    <th scope="col"><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${members.map(
                    (m) =>
                      html`<tr data-member=${m.account}>
                        <th scope="row" class="mono">${m.account}</th>
                        <td>${m.state}</td>
                        <td data-testid="expires">${countdown(m.expiresAt, this.now)}</td>
                        <td class="mono">${json(m.properties.custom)}</td>
                        <td>
                          <button type="button" @click=${() => this.removeMember(m.account)}>
                            Remove <span class="visually-hidden">${m.account}</span>
                          </button>
                          <button type="button" @click=${() => this.ban(m.account)}>
                            Ban <span class="visually-hidden">${m.account}</span>
                          </button>
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>`;
  }

  private tapList() {
    return html`<section aria-labelledby="taps-heading">
      <h2 id="taps-heading">Recent taps <span class="badge">${this.live}</span></h2>
      <ol class="taps" aria-live="polite" aria-relevant="additions">
        ${this.taps.map((t) => html`<li><time>${t.at.toLocaleTimeString()}</time> ${t.text}</li>`)}
      </ol>
    </section>`;
  }

  private async closeRoom(): Promise<void> {
    const confirmed = await confirmAction({
      title: 'Close this room?',
      message: html`Room <span class="mono">${this.roomId}</span> ends now: its reservations end and its game server is
        stopped. Players in it are disconnected.`,
      confirm: 'Close room',
    });
    if (!confirmed) return;
    await this.act(async () => {
      this.room = await this.api.closeRoom(this.roomId);
      return 'The room was closed.';
    });
  }

  private async removeMember(account: string): Promise<void> {
    const confirmed = await confirmAction({
      title: `Remove ${account}?`,
      message: html`<span class="mono">${account}</span> leaves room <span class="mono">${this.roomId}</span>: its slot
        frees and its key stops working. It may join again unless it is banned.`,
      confirm: 'Remove member',
    });
    if (!confirmed) return;
    await this.act(async () => {
      const room = await this.api.removeMember(this.roomId, account);
      if (room) this.room = room;
      return room ? `${account} was removed.` : `${account} was removed; the session ended with its last member.`;
    });
  }

  private async ban(account: string): Promise<void> {
    const data = await confirmAction({
      title: `Ban ${account}?`,
      message: html`<span class="mono">${account}</span> can no longer join or create rooms until the ban is lifted
        (<code>DELETE /v1/admin/bans/{account}</code>).`,
      confirm: 'Ban account',
      fields: html`<label>Reason (for operators only)<input name="reason" maxlength="500" /></label>`,
    });
    if (!data) return;
    await this.act(async () => {
      await this.api.banAccount(account, String(data.get('reason') ?? '').trim());
      return `${account} is banned.`;
    });
  }

  private async act(action: () => Promise<string>): Promise<void> {
    try {
      this.notice = await action();
      this.problem = undefined;
    } catch (error) {
      this.problem = errorText(error);
    }
    await this.poller.now();
  }
}

customElements.define('rk-room-page', RoomPage);
