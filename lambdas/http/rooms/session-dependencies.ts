import type { SessionDependencies } from '../../../core/rooms/patch';
import type { Platform } from '../../dependencies';

/** What the session use cases take from the platform. */
export function sessionDependencies(p: Platform): SessionDependencies {
  return {
    sessions: p.rooms,
    rooms: p.rooms,
    now: p.now,
    // The session is over (empty for sessionEmptyMs): its server has nobody left to serve.
    stopServer: (taskId) => p.spawner.stop(taskId, 'session-empty'),
  };
}
