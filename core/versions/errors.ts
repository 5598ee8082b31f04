import { PlatformError } from '../errors';
import { protocolDiff, protocolOfStored, type Protocol, type ProtocolDiff, type StoredProtocol } from './protocol';
import type { ProtocolComponents } from './protocol-store';
import type { Room } from '../rooms/model';

/** The two hashes a refusal names. */
export interface MismatchedHashes {
  readonly clientHash: string;
  readonly serverHash: string;
}

/**
 * The client's build and the room's server (or the configuration's declared build) differ in
 * their network components (docs/api.md "Version safety"): 409 PROTOCOL_MISMATCH with the diff,
 * as seen from the client, and which build is newer when both said when they were built.
 */
export class ProtocolMismatchError extends PlatformError {
  override readonly name = 'ProtocolMismatchError';
  readonly code = 'PROTOCOL_MISMATCH';

  /**
   * @param room the room as the refusing write found it (never shown to the client): a caller
   * that answers this refusal tells that room's server, at its current epoch.
   */
  constructor(
    readonly roomId: string | undefined,
    readonly diff: ProtocolDiff,
    readonly hashes: MismatchedHashes,
    readonly room?: Room,
  ) {
    super(mismatchSentence(roomId, diff, hashes), {
      details: {
        ...(roomId === undefined ? {} : { roomId }),
        added: diff.added,
        removed: diff.removed,
        changed: diff.changed,
        newer: diff.newer,
        clientHash: hashes.clientHash,
        serverHash: hashes.serverHash,
      },
    });
  }
}

/** What the developer reads: which components differ and which build to bring up to date. */
function mismatchSentence(roomId: string | undefined, diff: ProtocolDiff, hashes: MismatchedHashes): string {
  const where = roomId === undefined ? "this game version's servers" : `the game server of room '${roomId}'`;
  const lists = [
    diff.added.length > 0 ? `only the client has ${diff.added.join(', ')}` : '',
    diff.removed.length > 0 ? `only the server has ${diff.removed.join(', ')}` : '',
    diff.changed.length > 0 ? `both have ${diff.changed.join(', ')} but differently` : '',
  ].filter((part) => part !== '');
  const which =
    diff.newer === 'client'
      ? 'The client was built later: rebuild and deploy the game server from the same components.'
      : diff.newer === 'server'
        ? 'The server was built later: rebuild the client from the same components.'
        : 'Rebuild the older of the two from the same components.';
  return (
    `The client's network components (${hashes.clientHash}) differ from ${where} (${hashes.serverHash})` +
    (lists.length > 0 ? `: ${lists.join('; ')}. ` : '. ') +
    which
  );
}

/**
 * The refusal of a client of build `client` by a server of build `server`: the server's
 * components are read (one read, on this failure path only) to name what differs; a build that
 * reported none, or a failed read, leaves the lists empty and the hashes still say it.
 */
export async function mismatchError(
  roomId: string | undefined,
  client: Protocol,
  server: StoredProtocol,
  components?: Pick<ProtocolComponents, 'componentsOf'>,
  room?: Room,
): Promise<ProtocolMismatchError> {
  const theirs = await components?.componentsOf(server.h).catch(() => undefined);
  return new ProtocolMismatchError(
    roomId,
    protocolDiff(client, protocolOfStored(server, theirs)),
    { clientHash: client.hash, serverHash: server.h },
    room,
  );
}

/** Whether a client of build `client` may play on a server of build `server`: equal, or either unknown. */
export function sameBuild(client: string | undefined, server: StoredProtocol | undefined): boolean {
  return client === undefined || server === undefined || client === server.h;
}
