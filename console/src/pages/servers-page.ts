import { html, nothing } from 'lit';
import type { ConsoleApi } from '../api';
import { Page, Poller } from '../base';
import { ago, errorText, percent } from '../format';
import { roomHref } from '../router';

type Hosts = Awaited<ReturnType<ConsoleApi['listHosts']>>;
type Pools = Awaited<ReturnType<ConsoleApi['getPool']>>;
type History = Awaited<ReturnType<ConsoleApi['listHistory']>>['events'];

/** Hosts with their heartbeat and load, the warm pool, and the spawn and stop history with reasons. */
class ServersPage extends Page {
  static override properties = {
    ...Page.properties,
    hosts: { state: true },
    pools: { state: true },
    history: { state: true },
    problem: { state: true },
  };
  declare hosts: Hosts | undefined;
  declare pools: Pools | undefined;
  declare history: History | undefined;
  declare problem: string | undefined;
  private readonly poller = new Poller(this, () => this.load());

  private async load(): Promise<void> {
    const [hosts, pools, history] = await Promise.allSettled([
      this.api.listHosts(),
      this.api.getPool(),
      this.api.listHistory({}),
    ]);
    if (hosts.status === 'fulfilled') this.hosts = hosts.value;
    if (pools.status === 'fulfilled') this.pools = pools.value;
    if (history.status === 'fulfilled') this.history = history.value.events;
    const failed = [hosts, pools, history].find((r) => r.status === 'rejected');
    this.problem = failed ? errorText(failed.reason) : undefined;
  }

  override render() {
    const now = Date.now();
    return html`<h1 tabindex="-1">Servers</h1>
      ${this.problem ? html`<p role="alert" class="error">${this.problem}</p>` : nothing} ${this.hostTable(now)}
      ${this.poolTable(now)} ${this.historyTable()}`;
  }

  private hostTable(now: number) {
    return html`<section aria-labelledby="hosts-heading">
      <h2 id="hosts-heading">Hosts</h2>
      ${
        !this.hosts
          ? html`<p role="status">Loading…</p>`
          : this.hosts.length === 0
            ? html`<p>No host: rooms run on the deployment's own cluster or the local fleet.</p>`
            : html`<div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Host</th>
                      <th scope="col">Region</th>
                      <th scope="col">Health</th>
                      <th scope="col">Load</th>
                      <th scope="col">Servers</th>
                      <th scope="col">CPU</th>
                      <th scope="col">Memory</th>
                      <th scope="col">Heartbeat</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${this.hosts.map(
                      (h) =>
                        html`<tr>
                          <th scope="row" class="mono">${h.hostId}${h.draining ? ' (draining)' : ''}</th>
                          <td>${h.region}</td>
                          <td>${h.health.healthy ? 'healthy' : `${h.health.reason}: ${h.health.detail}`}</td>
                          <td>${h.health.healthy ? percent(h.health.load) : '—'}</td>
                          <td>${h.heartbeat?.servers ?? '—'} running · ${h.placed} placed / ${h.maxServers}</td>
                          <td>${percent(h.heartbeat?.cpu)}</td>
                          <td>${percent(h.heartbeat?.memory)}</td>
                          <td>${ago(h.heartbeat?.at, now)}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
      }
    </section>`;
  }

  private poolTable(now: number) {
    const rows = (this.pools ?? []).flatMap((pool) =>
      pool.regions.map((region) => ({ ...region, key: `${pool.gameId} ${pool.version}` })),
    );
    return html`<section aria-labelledby="pool-heading">
      <h2 id="pool-heading">Warm pool</h2>
      ${
        !this.pools
          ? html`<p role="status">Loading…</p>`
          : rows.length === 0
            ? html`<p>No configuration keeps standby servers.</p>`
            : html`<div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">Configuration</th>
                      <th scope="col">Region</th>
                      <th scope="col">Target</th>
                      <th scope="col">Servers</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${rows.map(
                      (r) =>
                        html`<tr>
                          <th scope="row">${r.key}</th>
                          <td>${r.region}</td>
                          <td>${r.target ?? '—'}</td>
                          <td>
                            ${
                              r.servers.length === 0
                                ? 'none'
                                : r.servers.map(
                                    (s) =>
                                      html`<span class="chip"
                                        ><a href=${roomHref(s.roomId)} class="mono">${s.roomId.slice(0, 8)}</a>
                                        ${s.state} ${s.since ? ago(s.since, now) : ''}</span
                                      > `,
                                  )
                            }
                          </td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
      }
    </section>`;
  }

  private historyTable() {
    return html`<section aria-labelledby="history-heading">
      <h2 id="history-heading">Spawn and stop history</h2>
      ${
        !this.history
          ? html`<p role="status">Loading…</p>`
          : this.history.length === 0
            ? html`<p>Nothing in the last two days.</p>`
            : html`<div class="scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Room</th>
                      <th scope="col">Game</th>
                      <th scope="col">Region</th>
                      <th scope="col">Event</th>
                      <th scope="col">Reason</th>
                      <th scope="col">Host</th>
                    </tr>
                  </thead>
                  <tbody>
                    ${this.history.map(
                      (e) =>
                        html`<tr>
                          <td><time datetime=${e.at}>${new Date(e.at).toLocaleString()}</time></td>
                          <th scope="row"><a href=${roomHref(e.roomId)} class="mono">${e.roomId}</a></th>
                          <td>${e.gameId} ${e.version}</td>
                          <td>${e.region}</td>
                          <td>${e.event}</td>
                          <td>${e.reason ?? '—'}</td>
                          <td class="mono">${e.host ?? '—'}</td>
                        </tr>`,
                    )}
                  </tbody>
                </table>
              </div>`
      }
    </section>`;
  }
}

customElements.define('rk-servers-page', ServersPage);
