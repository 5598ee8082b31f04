import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '../core/infra/aws-clients';
import { config, type PlatformConfig } from '../core/infra/config';
import { RoomStore } from '../core/rooms/store';

/**
 * The adapters every handler uses, built once per process from the configuration (a Lambda
 * cold start, or the local cloud's first request) and shared by all handlers in it.
 */
export interface Platform {
  readonly config: PlatformConfig;
  readonly db: DynamoDBDocumentClient;
  readonly rooms: RoomStore;
}

let current: Platform | undefined;

export function platform(): Platform {
  if (!current) {
    const settings = config();
    const db = createDocumentClient(settings);
    current = { config: settings, db, rooms: new RoomStore(db, settings.tableName) };
  }
  return current;
}

/** Drop the shared adapters so the next call rebuilds them from a fresh configuration. */
export function resetPlatform(): void {
  current?.db.destroy();
  current = undefined;
}
