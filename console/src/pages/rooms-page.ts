import { html, nothing } from 'lit';
import type { RoomFilter, RoomList } from '../api';
import { Page, Poller } from '../base';
import { errorText } from '../format';
import { roomHref } from '../router';

type Rooms = RoomList['rooms'];
const filterFields = [
  ['gameId', 'Game'],
  ['version', 'Version'],
  ['region', 'Region'],
  ['template', 'Template'],
] as const;

/** Live rooms of every game, by id, filtered; refreshed every second. */
class RoomsPage extends Page {
  static override properties = {
    ...Page.properties,
    rooms: { state: true },
    filter: { state: true },
    pages: { state: true },
    nextToken: { state: true },
    problem: { state: true },
  };
  declare rooms: Rooms | undefined;
  declare filter: RoomFilter;
  /** The cursors of the pages before this one; the current page's own is the last. */
  declare pages: (string | undefined)[];
  declare nextToken: string | undefined;
  declare problem: string | undefined;
  private readonly poller = new Poller(this, () => this.load());

  constructor() {
    super();
    this.filter = {};
    this.pages = [undefined];
  }

  private async load(): Promise<void> {
    try {
      const cursor = this.pages.at(-1);
      const answer = await this.api.listRooms({ ...this.filter, ...(cursor ? { nextToken: cursor } : {}) });
      this.rooms = answer.rooms;
      this.nextToken = answer.nextToken;
      this.problem = undefined;
    } catch (error) {
      this.problem = errorText(error);
    }
  }

  override render() {
    return html`<h1 tabindex="-1">Rooms</h1>
      <form class="filters" role="search" aria-label="Filter rooms" @input=${this.onFilter} @submit=${this.onSubmit}>
        ${filterFields.map(
          ([name, label]) =>
            html`<label
              >${label}<input name=${name} .value=${this.filter[name] ?? ''} autocomplete="off" spellcheck="false"
            /></label>`,
        )}
        <label
          >State<select name="state" .value=${this.filter.state ?? ''}>
            <option value="">any</option>
            <option value="spawning">spawning</option>
            <option value="ready">ready</option>
          </select></label
        >
      </form>
      ${this.problem ? html`<p role="alert" class="error">${this.problem}</p>` : nothing} ${this.summary()}
      ${this.table()} ${this.pager()}`;
  }

  private summary() {
    if (!this.rooms) return html`<p role="status">Loading rooms…</p>`;
    const count = (state: string) => this.rooms!.filter((r) => r.state === state).length;
    const players = this.rooms.reduce((sum, r) => sum + r.players, 0);
    return html`<p class="counts" aria-live="polite">
      <strong>${this.rooms.length}</strong> live rooms on this page · ${count('ready')} ready · ${count('spawning')}
      spawning · ${players} players
    </p>`;
  }

  private table() {
    if (!this.rooms || this.rooms.length === 0) return this.rooms ? html`<p>No live room matches.</p>` : nothing;
    return html`<div class="scroll">
      <table class="rooms">
        <caption class="visually-hidden">
          Live rooms
        </caption>
        <thead>
          <tr>
            <th scope="col">Room</th>
            <th scope="col">Game</th>
            <th scope="col">Version</th>
            <th scope="col">Region</th>
            <th scope="col">State</th>
            <th scope="col">Template</th>
            <th scope="col">Players</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          ${this.rooms.map(
            (room) =>
              html`<tr data-room=${room.roomId}>
                <th scope="row"><a href=${roomHref(room.roomId)} class="mono">${room.roomId}</a></th>
                <td>${room.gameId || '—'}</td>
                <td>${room.version || '—'}</td>
                <td>${room.region}</td>
                <td><span class="state state-${room.state}">${room.state}</span></td>
                <td>${room.template ?? 'default'}</td>
                <td>${room.players} / ${room.maxPlayers}</td>
                <td>${room.changeNumber}</td>
              </tr>`,
          )}
        </tbody>
      </table>
    </div>`;
  }

  private pager() {
    if (this.pages.length === 1 && !this.nextToken) return nothing;
    return html`<div class="pager">
      <button type="button" ?disabled=${this.pages.length === 1} @click=${() => this.turn(-1)}>Previous page</button>
      <button type="button" ?disabled=${!this.nextToken} @click=${() => this.turn(1)}>Next page</button>
    </div>`;
  }

  private turn(step: 1 | -1): void {
    this.pages = step === 1 ? [...this.pages, this.nextToken] : this.pages.slice(0, -1);
    void this.poller.now();
  }

  private onFilter(event: Event): void {
    const form = (event.currentTarget as HTMLFormElement).elements;
    const value = (name: string) => (form.namedItem(name) as HTMLInputElement).value.trim() || undefined;
    const state = value('state') as RoomFilter['state'];
    this.filter = {
      ...Object.fromEntries(filterFields.map(([name]) => [name, value(name)]).filter(([, v]) => v)),
      ...(state ? { state } : {}),
    };
    this.pages = [undefined];
    void this.poller.now();
  }

  private onSubmit(event: Event): void {
    event.preventDefault();
  }
}

customElements.define('rk-rooms-page', RoomsPage);
