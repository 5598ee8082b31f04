import type { Logger } from '@aws-lambda-powertools/logger';
import type { SidecarEnvironment } from '../../core/gameservers/sidecar-environment';
import type { SidecarCredentials } from '../../core/protocol/controller-messages';

/** What an SDK client takes as `credentials` (structurally the SDK's identity provider). */
interface CredentialIdentity {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken: string;
  readonly expiration: Date;
}
export type CredentialProvider = () => Promise<CredentialIdentity>;

/** Renew this long before expiry: the SDK itself treats credentials as expired 5 min early. */
export const renewBeforeMs = 15 * 60_000;
/** After a failed renewal, try again this much later (until the session has lapsed). */
export const renewRetryMs = 30_000;

/** When to ask for the next session: `renewBeforeMs` ahead of expiry, at once if that has passed. */
export function renewalDelayMs(expiration: string, now: Date): number {
  return Math.max(0, Date.parse(expiration) - now.getTime() - renewBeforeMs);
}

/**
 * The sidecar's scoped STS session (deployed only). The spawner issued the first; before it
 * expires the sidecar asks the platform for the next one through the authenticated channel
 * (`renew`), and the SQS client reads whichever is current through `provider`.
 */
export class SessionCredentials {
  private current: SidecarCredentials;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(
    initial: SidecarCredentials,
    private readonly log: Logger,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.current = initial;
  }

  /** For the SDK client: the SDK calls it again when the session it holds is about to expire. */
  readonly provider: CredentialProvider = () =>
    Promise.resolve({
      accessKeyId: this.current.accessKeyId,
      secretAccessKey: this.current.secretAccessKey,
      sessionToken: this.current.sessionToken,
      expiration: new Date(this.current.expiration),
    });

  get expiration(): string {
    return this.current.expiration;
  }

  /** Schedules renewals until `stop()`. */
  start(renew: () => Promise<SidecarCredentials | undefined>): void {
    const schedule = (delayMs: number) => {
      if (this.stopped) return;
      this.timer = setTimeout(() => void attempt(), delayMs);
      this.timer.unref();
    };
    const attempt = async () => {
      const next = await renew().catch(() => undefined);
      if (this.stopped) return;
      if (next) {
        this.current = next;
        this.log.info('sidecar credentials renewed', { expiration: next.expiration });
        schedule(renewalDelayMs(next.expiration, this.now()));
      } else {
        this.log.warn('could not renew the sidecar credentials; retrying', { expiration: this.current.expiration });
        schedule(renewRetryMs);
      }
    };
    schedule(renewalDelayMs(this.current.expiration, this.now()));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}

/** The session the spawner put in the environment, if any (only deployed sidecars get one). */
export function sessionCredentials(env: SidecarEnvironment, log: Logger): SessionCredentials | undefined {
  const { AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_CREDENTIAL_EXPIRATION } = env;
  if (!AWS_ACCESS_KEY_ID || !AWS_SECRET_ACCESS_KEY || !AWS_SESSION_TOKEN || !AWS_CREDENTIAL_EXPIRATION)
    return undefined;
  return new SessionCredentials(
    {
      accessKeyId: AWS_ACCESS_KEY_ID,
      secretAccessKey: AWS_SECRET_ACCESS_KEY,
      sessionToken: AWS_SESSION_TOKEN,
      expiration: AWS_CREDENTIAL_EXPIRATION,
    },
    log,
  );
}
