import type { Readable } from 'node:stream';
import { decodeRoomKey, sidecarKeysFromRoomKey, type SidecarKeys } from '../../core/protocol/sidecar-channel';

/** K_room is 43 characters; anything much longer on stdin is not a key. */
const maxKeyText = 256;

/**
 * The room's channel keys, read once at start. On ECS SIDECAR_KEY comes out of the sealed
 * override (sealed-environment.ts; the game container sees neither). The local fleet writes
 * K_room to the sidecar's stdin instead and closes it: a game running as the same user can
 * read the sidecar's /proc/<pid>/environ, but not a pipe that was drained and closed before
 * the game was started. Throws SidecarChannelError (no key, or not a key); the text is never logged.
 */
export async function readSidecarKeys(
  roomId: string,
  fromEnvironment: string | undefined,
  stdin: Readable,
  timeoutMs = 5_000,
): Promise<SidecarKeys> {
  if (fromEnvironment) return sidecarKeysFromRoomKey(roomId, decodeRoomKey(fromEnvironment));
  const text = await readAll(stdin, timeoutMs);
  return sidecarKeysFromRoomKey(roomId, decodeRoomKey(text));
}

function readAll(stream: Readable, timeoutMs: number): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      clearTimeout(timer);
      stream.off('data', onData);
      stream.off('end', done);
      stream.off('error', done);
      // Closes the pipe (fd 0): nothing of the key stays readable through /proc/<pid>/fd/0.
      stream.destroy();
      resolve(text);
    };
    const onData = (chunk: Buffer | string) => {
      text += chunk.toString();
      if (text.length > maxKeyText) done();
    };
    const timer = setTimeout(done, timeoutMs);
    stream.on('data', onData);
    stream.once('end', done);
    stream.once('error', done);
  });
}
