import { controllerRequestSchema, type ControllerReply, type ControllerRequest } from '../protocol/controller-messages';
import { openRequest, sealReply, type SidecarKeys } from '../protocol/sidecar-channel';

/** Why a message on the controller queue was refused: safe to log, and never worth a retry. */
type ControllerMessageRejection = 'malformed' | 'bad-mac' | 'invalid-payload' | 'room-mismatch';

export type OpenedControllerMessage =
  | { readonly ok: true; readonly request: ControllerRequest }
  | { readonly ok: false; readonly reason: ControllerMessageRejection; readonly roomId?: string };

/**
 * The platform's side of the sidecar channel: one message of the controller request queue is
 * trusted only if it is an envelope MAC'd with the key of the room it names, and its payload
 * speaks for that same room. Anything else — a game that found the queue URL, another room's
 * sidecar, a hand-written message — is refused before it reaches a use case.
 *
 * `keysFor` failing (the platform secret could not be loaded) throws: that is the platform's
 * fault, and the message is retried.
 */
export async function openControllerMessage(
  body: string,
  keysFor: (roomId: string) => Promise<SidecarKeys>,
): Promise<OpenedControllerMessage> {
  const opened = await openRequest(body, keysFor);
  if (!opened.ok) return opened;
  let payload: unknown;
  try {
    payload = JSON.parse(opened.payload);
  } catch {
    return { ok: false, reason: 'invalid-payload', roomId: opened.roomId };
  }
  const request = controllerRequestSchema.safeParse(payload);
  if (!request.success) return { ok: false, reason: 'invalid-payload', roomId: opened.roomId };
  // The MAC proves who sent the envelope; the payload must not then speak for another room.
  if (request.data.roomId !== opened.roomId) return { ok: false, reason: 'room-mismatch', roomId: opened.roomId };
  return { ok: true, request: request.data };
}

/** The SQS message body of one platform → sidecar message: readable by that room's sidecar only. */
export function sealControllerReply(keys: SidecarKeys, reply: ControllerReply): string {
  return JSON.stringify(sealReply(keys, JSON.stringify(reply)));
}
