import { html, nothing } from 'lit';
import type { ConsoleApi, RoomList } from '../api';
import { Page, Poller } from '../base';
import { errorText } from '../format';

type Configurations = Awaited<ReturnType<ConsoleApi['listConfigurations']>>;
type Templates = Awaited<ReturnType<ConsoleApi['listTemplates']>>;

/** One build (a protocol hash): which configurations declare it and how many live rooms run it. */
interface Build {
  readonly hash: string;
  readonly declaredBy: string[];
  readonly liveRooms: number;
}

/** A live room's build, when its view carries the one its server reported. */
function buildOf(room: RoomList['rooms'][number]): string | undefined {
  const protocol = (room as { protocol?: { hash?: unknown } }).protocol;
  return typeof protocol?.hash === 'string' ? protocol.hash : undefined;
}

/** Every build declared by a configuration or seen on a live room. */
function buildTable(configurations: Configurations, rooms: RoomList['rooms']): Build[] {
  const builds = new Map<string, { declaredBy: string[]; liveRooms: number }>();
  const entry = (hash: string) => builds.get(hash) ?? builds.set(hash, { declaredBy: [], liveRooms: 0 }).get(hash)!;
  for (const c of configurations) if (c.protocol) entry(c.protocol.hash).declaredBy.push(`${c.gameId} ${c.version}`);
  for (const room of rooms) {
    const hash = buildOf(room);
    if (hash) entry(hash).liveRooms += 1;
  }
  return [...builds].map(([hash, b]) => ({ hash, ...b })).sort((a, b) => a.hash.localeCompare(b.hash));
}

/** Configurations, templates and the builds (version hashes) the platform knows of. */
class CatalogPage extends Page {
  static override properties = {
    ...Page.properties,
    configurations: { state: true },
    templates: { state: true },
    builds: { state: true },
    problem: { state: true },
  };
  declare configurations: Configurations | undefined;
  declare templates: Templates | undefined;
  declare builds: Build[] | undefined;
  declare problem: string | undefined;
  private readonly poller = new Poller(this, () => this.load());

  private async load(): Promise<void> {
    try {
      const [configurations, templates, rooms] = await Promise.all([
        this.api.listConfigurations(),
        this.api.listTemplates(),
        this.api.listRooms({}),
      ]);
      this.configurations = configurations;
      this.templates = templates;
      this.builds = buildTable(configurations, rooms.rooms);
      this.problem = undefined;
    } catch (error) {
      this.problem = errorText(error);
    }
  }

  override render() {
    return html`<h1 tabindex="-1">Catalog</h1>
      ${this.problem ? html`<p role="alert" class="error">${this.problem}</p>` : nothing}
      ${!this.configurations ? html`<p role="status">Loading…</p>` : nothing} ${this.configurationTable()}
      ${this.templateTable()} ${this.buildSection()}`;
  }

  private configurationTable() {
    if (!this.configurations) return nothing;
    return html`<section aria-labelledby="configurations-heading">
      <h2 id="configurations-heading">Game configurations (${this.configurations.length})</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Game</th>
              <th scope="col">Version</th>
              <th scope="col">Runs</th>
              <th scope="col">Players</th>
              <th scope="col">Standby</th>
              <th scope="col">Build</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            ${this.configurations.map(
              (c) =>
                html`<tr>
                  <th scope="row">${c.gameId}</th>
                  <td>${c.version}</td>
                  <td class="mono small">${c.image ?? c.binary ?? '—'}</td>
                  <td>${c.maxPlayers}</td>
                  <td>${c.standby ?? 0}</td>
                  <td class="mono">${c.protocol?.hash ?? '—'}</td>
                  <td><time datetime=${c.updatedAt}>${new Date(c.updatedAt).toLocaleString()}</time></td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </section>`;
  }

  private templateTable() {
    if (!this.templates) return nothing;
    return html`<section aria-labelledby="templates-heading">
      <h2 id="templates-heading">Templates (${this.templates.length})</h2>
      <div class="scroll">
        <table>
          <thead>
            <tr>
              <th scope="col">Template</th>
              <th scope="col">Hosting</th>
              <th scope="col">Configuration</th>
              <th scope="col">Members</th>
              <th scope="col">Visibility</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            ${this.templates.map(
              (t) =>
                html`<tr>
                  <th scope="row">${t.name}</th>
                  <td>${t.hosting}</td>
                  <td>${t.gameId ? `${t.gameId} ${t.version}` : '—'}</td>
                  <td>${t.constants.maxMembers}</td>
                  <td>${t.constants.visibility}</td>
                  <td><time datetime=${t.updatedAt}>${new Date(t.updatedAt).toLocaleString()}</time></td>
                </tr>`,
            )}
          </tbody>
        </table>
      </div>
    </section>`;
  }

  private buildSection() {
    if (!this.builds) return nothing;
    return html`<section aria-labelledby="builds-heading">
      <h2 id="builds-heading">Builds (version hashes)</h2>
      <p>The network-component hashes configurations declare (<code>protocol</code>) and live rooms run.</p>
      ${
        this.builds.length === 0
          ? html`<p>No configuration declares a build and no live room reported one.</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Hash</th>
                    <th scope="col">Declared by</th>
                    <th scope="col">Live rooms</th>
                  </tr>
                </thead>
                <tbody>
                  ${this.builds.map(
                    (b) =>
                      html`<tr>
                        <th scope="row" class="mono">${b.hash}</th>
                        <td>${b.declaredBy.join(', ') || '—'}</td>
                        <td>${b.liveRooms}</td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }
    </section>`;
  }
}

customElements.define('rk-catalog-page', CatalogPage);
