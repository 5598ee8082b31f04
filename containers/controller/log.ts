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
 * `kept` are known values that are no secret but have a secret's shape (the room id, a UUID,
 * is a 36-character base64url run): they stay, and only the text around them is judged.
 *
 * @example redactSecrets('token=eyJhbGciOi.eyJzdWIiOi.sig', []) // 'token=[redacted]'
 * @example redactSecrets(`room ${roomId} up`, [], [roomId]) // `room ${roomId} up`
 */
export function redactSecrets(line: string, secrets: readonly string[], kept: readonly string[] = []): string {
  let text = line;
  for (const secret of secrets) {
    if (secret.length >= 8) text = text.split(secret).join('[redacted]');
  }
  const shapes = (part: string) => part.replace(jwtPattern, '[redacted]').replace(longSecretPattern, '[redacted]');
  // Split on the kept values, then judge each piece by shape, so a kept value is never part
  // of a run that gets redacted, and a secret beside it still is.
  let pieces = [text];
  for (const value of kept)
    if (value.length > 0) pieces = pieces.flatMap((piece) => interleave(piece.split(value), value));
  text = pieces.map((piece) => (kept.includes(piece) ? piece : shapes(piece))).join('');
  // Cut after redacting, so a cut never leaves the head of a secret the patterns missed.
  return text.length > maxOutputLineChars ? `${text.slice(0, maxOutputLineChars)}…` : text;
}

/** `['a', 'b', 'c']` with `x` → `['a', 'x', 'b', 'x', 'c']`. */
function interleave(parts: readonly string[], separator: string): string[] {
  return parts.flatMap((part, i) => (i === 0 ? [part] : [separator, part]));
}
