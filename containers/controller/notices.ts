import type { Logger } from '@aws-lambda-powertools/logger';
import { platformNotices } from '../../core/protocol/game-methods';
import type { PlatformNoticeMessage } from './bridge';

export interface NoticeRelayDependencies {
  /** False once the room is ending: the game is being stopped, nothing more is told it. */
  readonly open: () => boolean;
  /** Sends a JSON-RPC notification (no id) to the game; resolves whether the socket took it. */
  readonly notify: (method: string, params: Record<string, unknown>) => Promise<boolean>;
  readonly log: Pick<Logger, 'info' | 'warn'>;
}

/**
 * Relays the platform's notices to the game as JSON-RPC notifications: only the methods of
 * `platformNotices`, with params of the table's shape, and only while the room is not ending.
 * The game answers nothing, so nothing is waited for.
 */
export function createNoticeRelay(deps: NoticeRelayDependencies): (notice: PlatformNoticeMessage) => Promise<void> {
  const notices = new Map(Object.entries(platformNotices));
  return async (notice) => {
    if (!deps.open()) return;
    const spec = notices.get(notice.method);
    const params = spec?.params.safeParse(notice.params);
    if (!params?.success) {
      deps.log.warn('dropped a notice the game is not told of', { method: notice.method });
      return;
    }
    const sent = await deps.notify(notice.method, params.data);
    deps.log.info('relayed a platform notice to the game', { method: notice.method, sent });
  };
}
