import { html, nothing } from 'lit';
import type { ConsoleApi } from '../api';
import { confirmAction, Page, Poller } from '../base';
import { ageS, errorText } from '../format';

type Queues = Awaited<ReturnType<ConsoleApi['listQueues']>>;

/** The controller queues and their dead-letter queues, with a re-drive of what is dead-lettered. */
class QueuesPage extends Page {
  static override properties = {
    ...Page.properties,
    queues: { state: true },
    problem: { state: true },
    notice: { state: true },
  };
  declare queues: Queues | undefined;
  declare problem: string | undefined;
  declare notice: string | undefined;
  private readonly poller = new Poller(this, () => this.load());

  private async load(): Promise<void> {
    try {
      this.queues = await this.api.listQueues();
      this.problem = undefined;
    } catch (error) {
      this.problem = errorText(error);
    }
  }

  override render() {
    return html`<h1 tabindex="-1">Queues</h1>
      <p>
        Counts are SQS's approximate ones. The oldest message's age comes from CloudWatch deployed, and is unknown (—)
        where no metric exists (the local cloud's source queues).
      </p>
      ${this.problem ? html`<p role="alert" class="error">${this.problem}</p>` : nothing}
      ${this.notice ? html`<p role="status" class="notice">${this.notice}</p>` : nothing}
      ${
        !this.queues
          ? html`<p role="status">Loading…</p>`
          : html`<div class="scroll">
              <table>
                <thead>
                  <tr>
                    <th scope="col">Queue</th>
                    <th scope="col">Visible</th>
                    <th scope="col">In flight</th>
                    <th scope="col">Delayed</th>
                    <th scope="col">Oldest</th>
                    <th scope="col">Dead letters</th>
                    <th scope="col">Oldest dead letter</th>
                    <th scope="col"><span class="visually-hidden">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${this.queues.map(
                    (q) =>
                      html`<tr data-queue=${q.id}>
                        <th scope="row">
                          ${q.id}<br /><span class="mono small">${q.name}${q.fifo ? ' (FIFO)' : ''}</span>
                        </th>
                        <td>${q.visible}</td>
                        <td>${q.inFlight}</td>
                        <td>${q.delayed}</td>
                        <td>${ageS(q.oldestAgeS)}</td>
                        <td>${q.deadLetter.visible} visible · ${q.deadLetter.inFlight} in flight</td>
                        <td>${ageS(q.deadLetter.oldestAgeS)}</td>
                        <td>
                          <button
                            type="button"
                            ?disabled=${q.deadLetter.visible === 0}
                            @click=${() => this.redrive(q.id)}
                          >
                            Re-drive <span class="visually-hidden">${q.id}</span>
                          </button>
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
            </div>`
      }`;
  }

  private async redrive(queueId: string): Promise<void> {
    const data = await confirmAction({
      title: `Re-drive ${queueId}?`,
      message:
        'Dead-lettered messages go back to their source queue, oldest first, and are handled again. Each is deleted ' +
        'from the dead-letter queue only once it is back on the source queue.',
      confirm: 'Re-drive',
      fields: html`<label>At most<input name="max" type="number" min="1" max="1000" value="100" required /></label>`,
    });
    if (!data) return;
    try {
      const { moved, remaining } = await this.api.redrive(queueId, Number(data.get('max')));
      this.notice = `${moved} messages moved back to ${queueId}; ${remaining} remain dead-lettered.`;
      this.problem = undefined;
    } catch (error) {
      this.problem = errorText(error);
    }
    await this.poller.now();
  }
}

customElements.define('rk-queues-page', QueuesPage);
