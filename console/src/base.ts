import {
  LitElement,
  render,
  html,
  type ReactiveController,
  type ReactiveControllerHost,
  type TemplateResult,
} from 'lit';
import type { ConsoleApi } from './api';
import type { Session } from './session';

/**
 * Pages render into the light DOM: one stylesheet (styles.css) styles every page, and the
 * document's own focus order, landmarks and labels are what assistive technology reads.
 */
export class LightElement extends LitElement {
  protected override createRenderRoot(): HTMLElement {
    return this;
  }
}

/** A page: the API and the session are handed down by the app. */
export class Page extends LightElement {
  static override properties = { api: { attribute: false }, session: { attribute: false } };
  declare api: ConsoleApi;
  declare session: Session;
}

/**
 * Calls `load` now and then every `intervalMs` while the page is shown and the tab visible
 * (never two at once), so lists follow the platform within a second without a reload.
 */
export class Poller implements ReactiveController {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private running = false;
  private connected = false;
  private readonly onVisible = () => {
    if (!document.hidden) void this.tick();
  };

  constructor(
    host: ReactiveControllerHost,
    private readonly load: () => Promise<void>,
    private readonly intervalMs = 1000,
  ) {
    host.addController(this);
  }

  hostConnected(): void {
    this.connected = true;
    document.addEventListener('visibilitychange', this.onVisible);
    void this.tick();
  }

  hostDisconnected(): void {
    this.connected = false;
    document.removeEventListener('visibilitychange', this.onVisible);
    clearTimeout(this.timer);
  }

  /** Loads now (after an action), whatever the timer says. */
  async now(): Promise<void> {
    await this.tick();
  }

  private async tick(): Promise<void> {
    clearTimeout(this.timer);
    if (!this.connected || this.running || document.hidden) return;
    this.running = true;
    try {
      await this.load();
    } finally {
      this.running = false;
      if (this.connected) this.timer = setTimeout(() => void this.tick(), this.intervalMs);
    }
  }
}

export interface ConfirmOptions {
  readonly title: string;
  readonly message: TemplateResult | string;
  /** The confirming button's label: says what happens (`Close room`). */
  readonly confirm: string;
  /** Inputs the operator fills in (read from the returned FormData). */
  readonly fields?: TemplateResult;
}

let dialogs = 0;

/**
 * A confirmation in a native modal `<dialog>`: it traps focus, Escape cancels, and focus
 * returns to the button that opened it. Resolves with the form's data when confirmed.
 */
export function confirmAction(options: ConfirmOptions): Promise<FormData | undefined> {
  const opener = document.activeElement as HTMLElement | null;
  const id = `confirm-${++dialogs}`;
  const dialog = document.createElement('dialog');
  dialog.className = 'confirm';
  dialog.setAttribute('aria-labelledby', `${id}-title`);
  dialog.setAttribute('aria-describedby', `${id}-message`);
  render(
    html`<form method="dialog">
      <h2 id="${id}-title">${options.title}</h2>
      <p id="${id}-message">${options.message}</p>
      ${options.fields ?? ''}
      <div class="actions">
        <button type="submit" value="cancel" formnovalidate autofocus>Cancel</button>
        <button type="submit" value="confirm" class="danger">${options.confirm}</button>
      </div>
    </form>`,
    dialog,
  );
  document.body.append(dialog);
  dialog.showModal();
  return new Promise((resolve) => {
    dialog.addEventListener(
      'close',
      () => {
        const data = new FormData(dialog.querySelector('form')!);
        dialog.remove();
        opener?.focus();
        resolve(dialog.returnValue === 'confirm' ? data : undefined);
      },
      { once: true },
    );
  });
}
