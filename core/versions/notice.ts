import { childLogger } from '../infra/logger';
import { countMetric, versionMetrics } from '../infra/metrics';
import { serverEpochOf } from '../rooms/replacement';
import type { Room } from '../rooms/model';
import { ProtocolMismatchError } from './errors';
import { protocolDiff, type Protocol } from './protocol';

const log = childLogger('versions');

/** The `protocol_mismatch` notification's params, as the game receives them (docs/game-server-protocol.md). */
// A type, not an interface: a notice's params travel as a JSON object (`Record<string, unknown>`).
type ProtocolMismatchParams = {
  readonly account: string;
  readonly client: { readonly hash: string; readonly builtAt?: string };
  readonly server: { readonly hash: string };
  readonly added: readonly string[];
  readonly removed: readonly string[];
  readonly changed: readonly string[];
  readonly newer: 'client' | 'server' | 'unknown';
};

/** The sealed reply-queue message the sidecar relays to the game as a JSON-RPC notification. */
interface ProtocolMismatchNotice {
  readonly type: 'notice';
  readonly method: 'protocol_mismatch';
  readonly params: ProtocolMismatchParams;
}

/** The platform's sidecar delivery (core/commands/delivery.ts `SidecarDelivery`), as a notice uses it. */
export type NoticeDelivery = (
  roomId: string,
  message: ProtocolMismatchNotice,
  epoch: number,
) => Promise<'delivered' | 'gone'>;

/** Who was refused, with which build, and what the refusal said. */
export interface Refusal {
  readonly account: string;
  readonly client: Protocol;
  readonly error: ProtocolMismatchError;
}

/**
 * Logs and counts one refused client (the `ProtocolMismatches` metric, alarmed on in CDK): a
 * mismatch means two builds are out in the world together, which operators want to see.
 */
export function recordMismatch(refusal: Refusal, now: Date): void {
  const { error } = refusal;
  log.warn('client refused: network components differ', {
    account: refusal.account,
    roomId: error.roomId ?? null,
    clientHash: error.hashes.clientHash,
    serverHash: error.hashes.serverHash,
    added: error.diff.added,
    removed: error.diff.removed,
    changed: error.diff.changed,
    newer: error.diff.newer,
  });
  countMetric(versionMetrics.protocolMismatches, now);
}

/**
 * Records the refusal and tells the room's game server about it (a `protocol_mismatch`
 * notification through its sidecar, to the server of the room's current epoch), so the server
 * can log which client build knocked. Only a ready room has a server to tell. The caller awaits
 * the send before it answers (a Lambda instance may be frozen once it has answered, losing a send
 * still in flight), but never fails with it: a failed notice is logged.
 */
export async function tellServerOfMismatch(
  room: Pick<Room, 'roomId' | 'state' | 'host'>,
  refusal: Refusal,
  deps: { readonly deliver: NoticeDelivery; readonly now: () => Date },
): Promise<void> {
  recordMismatch(refusal, deps.now());
  if (room.state !== 'ready') return;
  const { error, client } = refusal;
  const notice: ProtocolMismatchNotice = {
    type: 'notice',
    method: 'protocol_mismatch',
    params: {
      account: refusal.account,
      client: { hash: client.hash, ...(client.builtAt === undefined ? {} : { builtAt: client.builtAt }) },
      server: { hash: error.hashes.serverHash },
      added: error.diff.added,
      removed: error.diff.removed,
      changed: error.diff.changed,
      newer: error.diff.newer,
    },
  };
  try {
    const outcome = await deps.deliver(room.roomId, notice, serverEpochOf(room));
    if (outcome === 'gone') log.info('protocol_mismatch not delivered: the server is gone', { roomId: room.roomId });
  } catch (cause) {
    log.warn('protocol_mismatch notice could not be sent', { roomId: room.roomId, error: cause as Error });
  }
}

/**
 * Refuses a client whose build is not the one its configuration declares (and checks), before
 * anything is written or started: its diff is against the declared build's own components.
 */
export function refuseUndeclaredBuild(
  configuration: { readonly protocol?: Protocol; readonly checkProtocol?: boolean },
  client: Protocol | undefined,
  account: string,
  now: Date,
): void {
  const declared = configuration.protocol;
  if (!client || !declared || configuration.checkProtocol === false || client.hash === declared.hash) return;
  const error = new ProtocolMismatchError(undefined, protocolDiff(client, declared), {
    clientHash: client.hash,
    serverHash: declared.hash,
  });
  recordMismatch({ account, client, error }, now);
  throw error;
}
