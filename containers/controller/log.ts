import type { Logger } from '@aws-lambda-powertools/logger';
import { childLogger } from '../../core/infra/logger';

/** The sidecar's structured log: Powertools JSON lines with `component: "controller"`. */
export function controllerLogger(roomId: string): Logger {
  const log = childLogger('controller');
  log.appendPersistentKeys({ roomId });
  return log;
}

/** Longest game output line kept in the log; the rest is cut. */
export const maxOutputLineChars = 4096;

const jwtPattern = /eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
/** Registration keys and most bearer secrets are long base64url runs (ours: 43 characters). */
const longSecretPattern = /[A-Za-z0-9_-]{32,}/g;

/**
 * Game output is the game developer's text, which may print its own access token or a
 * player's key: remove the known secrets and anything shaped like one before logging it.
 *
 * @example redactSecrets('token=eyJhbGciOi.eyJzdWIiOi.sig', []) // 'token=[redacted]'
 */
export function redactSecrets(line: string, secrets: readonly string[]): string {
  let text = line;
  for (const secret of secrets) {
    if (secret.length >= 8) text = text.split(secret).join('[redacted]');
  }
  // Cut after redacting, so a cut never leaves the head of a secret the patterns missed.
  text = text.replace(jwtPattern, '[redacted]').replace(longSecretPattern, '[redacted]');
  return text.length > maxOutputLineChars ? `${text.slice(0, maxOutputLineChars)}…` : text;
}
