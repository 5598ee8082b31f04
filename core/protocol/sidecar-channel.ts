import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';
import * as z from 'zod';

/**
 * The authenticated channel between one room's controller sidecar and the platform.
 *
 *   platform secret ──HKDF(label, roomId)──► K_room ──HKDF("request-mac")──► macKey
 *                                                   └─HKDF("reply-aead")───► replyKey
 *
 *   sidecar ──{ v, roomId, payload, mac = HMAC(macKey, roomId‖payload) }──► controller-requests
 *   sidecar ◄──{ v, iv, data = AES-256-GCM(replyKey, reply, aad = roomId) }── reply queue
 *
 * The platform derives K_room again from the room id in each envelope, so it keeps no
 * per-room state and a new secret never has to be deployed. Only the sidecar the platform
 * started for a room holds that room's K_room: a game (or another room's sidecar) that can
 * reach the queues can neither speak for another room nor read or forge what the platform
 * sends to it. Keys never leave this module as text except through `encodeRoomKey`, which
 * is what a spawner hands the sidecar.
 */

/** Versioned: changing the derivation means a new label, and old sidecars fail closed. */
const sidecarKeyLabel = 'roomkeeper/sidecar/v1';
const keyBytes = 32;
const ivBytes = 12;
const tagBytes = 16;

/** The keys of one room's channel; both sides derive the same from K_room. */
export interface SidecarKeys {
  readonly roomId: string;
  /** K_room itself: what the spawner hands the sidecar (never logged, never given to the game). */
  readonly roomKey: Buffer;
  readonly macKey: Buffer;
  readonly replyKey: Buffer;
}

export class SidecarChannelError extends Error {
  override readonly name = 'SidecarChannelError';
}

const roomIdSchema = z.string().min(1).max(64);

/** K_room = HKDF-SHA256(ikm = the platform secret, salt = label, info = room id). */
export function deriveRoomKey(platformSecret: Uint8Array, roomId: string): Buffer {
  if (platformSecret.length < 16)
    throw new SidecarChannelError('The platform secret is too short to derive keys from.');
  return Buffer.from(hkdfSync('sha256', platformSecret, sidecarKeyLabel, roomIdSchema.parse(roomId), keyBytes));
}

/** The channel keys for a room, from its K_room (the sidecar's side) . */
export function sidecarKeysFromRoomKey(roomId: string, roomKey: Uint8Array): SidecarKeys {
  if (roomKey.length !== keyBytes) throw new SidecarChannelError(`A room key is ${keyBytes} bytes.`);
  const sub = (purpose: string) => Buffer.from(hkdfSync('sha256', roomKey, sidecarKeyLabel, purpose, keyBytes));
  return { roomId, roomKey: Buffer.from(roomKey), macKey: sub('request-mac'), replyKey: sub('reply-aead') };
}

/** The channel keys for a room, from the platform secret (the platform's side). */
export function sidecarKeys(platformSecret: Uint8Array, roomId: string): SidecarKeys {
  return sidecarKeysFromRoomKey(roomId, deriveRoomKey(platformSecret, roomId));
}

/** K_room as the text a spawner passes to the sidecar (stdin locally, a container override on ECS). */
export const encodeRoomKey = (keys: SidecarKeys): string => keys.roomKey.toString('base64url');

/** Parses what `encodeRoomKey` produced; throws SidecarChannelError on anything else. */
export function decodeRoomKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[A-Za-z0-9_-]{43}$/.test(trimmed) ? Buffer.from(trimmed, 'base64url') : undefined;
  if (!key || key.length !== keyBytes) throw new SidecarChannelError('The sidecar key is not a 32-byte base64url key.');
  return key;
}

// ───────────────────────── sidecar → platform: MAC'd envelopes ─────────────────────────

const requestEnvelopeSchema = z.object({
  v: z.literal(1),
  roomId: roomIdSchema,
  /** The request as JSON text: the MAC covers these exact bytes, never a re-serialisation. */
  payload: z.string().min(2).max(200_000),
  mac: z.string().regex(/^[A-Za-z0-9_-]{43}$/),
});
export type RequestEnvelope = z.infer<typeof requestEnvelopeSchema>;

/** Length-prefixed, so no (roomId, payload) pair can be re-split into another one. */
function requestMac(keys: SidecarKeys, roomId: string, payload: string): Buffer {
  return createHmac('sha256', keys.macKey)
    .update(`${sidecarKeyLabel}/request\n${Buffer.byteLength(roomId)}:${roomId}\n`)
    .update(payload)
    .digest();
}

/** Wraps one sidecar → platform message (already JSON text) for its room. */
export function sealRequest(keys: SidecarKeys, payload: string): RequestEnvelope {
  return { v: 1, roomId: keys.roomId, payload, mac: requestMac(keys, keys.roomId, payload).toString('base64url') };
}

export type OpenedRequest =
  | { readonly ok: true; readonly roomId: string; readonly payload: string }
  | { readonly ok: false; readonly reason: 'malformed' | 'bad-mac'; readonly roomId?: string };

/**
 * Checks one envelope from the request queue. `keysFor` derives the keys of the room the
 * envelope names; the MAC is compared in constant time. A failure says why in words safe to
 * log (no key, no MAC), and is never worth retrying.
 */
export async function openRequest(
  body: string,
  keysFor: (roomId: string) => Promise<SidecarKeys>,
): Promise<OpenedRequest> {
  let envelope: RequestEnvelope;
  try {
    envelope = requestEnvelopeSchema.parse(JSON.parse(body));
  } catch {
    return { ok: false, reason: 'malformed' };
  }
  const keys = await keysFor(envelope.roomId);
  const expected = requestMac(keys, envelope.roomId, envelope.payload);
  const given = Buffer.from(envelope.mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: 'bad-mac', roomId: envelope.roomId };
  }
  return { ok: true, roomId: envelope.roomId, payload: envelope.payload };
}

// ──────────────────── platform → sidecar: AES-256-GCM sealed messages ────────────────────

const sealedReplySchema = z.object({
  v: z.literal(1),
  /** 96-bit random nonce, fresh per message. */
  iv: z.string().regex(/^[A-Za-z0-9_-]{16}$/),
  /** Ciphertext followed by the 128-bit tag. */
  data: z.string().regex(/^[A-Za-z0-9_-]+$/),
});
export type SealedReply = z.infer<typeof sealedReplySchema>;

const replyAad = (roomId: string) => Buffer.from(`${sidecarKeyLabel}/reply\n${roomId}`);

/** Encrypts one platform → sidecar message (JSON text) so only this room's sidecar can read it. */
export function sealReply(keys: SidecarKeys, plaintext: string): SealedReply {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', keys.replyKey, iv, { authTagLength: tagBytes });
  cipher.setAAD(replyAad(keys.roomId));
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { v: 1, iv: iv.toString('base64url'), data: data.toString('base64url') };
}

/**
 * Decrypts a message from the reply queue. `undefined` for anything not sealed with this
 * room's key: forged, tampered, or sealed for another room and replayed into this queue.
 */
export function openReply(keys: SidecarKeys, body: string): string | undefined {
  let sealed: SealedReply;
  try {
    sealed = sealedReplySchema.parse(JSON.parse(body));
  } catch {
    return undefined;
  }
  const data = Buffer.from(sealed.data, 'base64url');
  if (data.length < tagBytes) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', keys.replyKey, Buffer.from(sealed.iv, 'base64url'), {
      authTagLength: tagBytes,
    });
    decipher.setAAD(replyAad(keys.roomId));
    decipher.setAuthTag(data.subarray(data.length - tagBytes));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - tagBytes)), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    return undefined;
  }
}
