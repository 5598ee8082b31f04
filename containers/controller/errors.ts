/**
 * Errors of the controller sidecar. Each names what failed and keeps the room id and the
 * original error as `cause`; none carries a token, key or the game's environment.
 */
export class ControllerStartError extends Error {
  override readonly name = 'ControllerStartError';
  constructor(
    readonly roomId: string,
    readonly step: 'reply-queue' | 'socket' | 'game',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
