import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import * as z from 'zod';

/**
 * The controller container's secrets, sealed so that they cross the ECS API as ciphertext.
 *
 *   stack ──Secrets Manager secret (64 alphanumerics)──► spawning functions (GetSecretValue)
 *                                                   └──► controller container only (task definition
 *                                                        `secrets`, injected by ECS at container start)
 *   spawner ──SIDECAR_SEALED = AES-256-GCM(envelope key, secrets, aad = key id + room id)──► RunTask override
 *
 * RunTask's overrides are readable by anyone allowed ecs:DescribeTasks and may be recorded by
 * CloudTrail; the envelope key is not (DescribeTasks and DescribeTaskDefinition show only the
 * secret's ARN). The associated data binds a blob to its room: a blob copied into another
 * room's task does not open there. The key id lets a sidecar tell a key mismatch (a rotation
 * between RunTask and container start) from tampering.
 */

/** Versioned: a new derivation means a new label, and old sidecars fail closed. */
const envelopeLabel = 'roomkeeper/sidecar-envelope/v1';
const keyBytes = 32;
const keyIdBytes = 6;
const ivBytes = 12;
const tagBytes = 16;
/** The stack generates 64 alphanumerics (about 380 bits); anything much shorter is not that secret. */
const minSecretChars = 32;
/** Far above any sealed environment (a few kB), so a bad blob cannot make the sidecar inflate much. */
const maxPlaintextBytes = 64 * 1024;

/** The variables that travel sealed: the room's channel key and its scoped STS session. */
export const sealedVariableNames = [
  'SIDECAR_KEY',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
] as const;
export type SealedVariables = Partial<Record<(typeof sealedVariableNames)[number], string>>;

const sealedVariablesSchema = z.strictObject(
  Object.fromEntries(sealedVariableNames.map((name) => [name, z.string().min(1).optional()])) as Record<
    (typeof sealedVariableNames)[number],
    z.ZodOptional<z.ZodString>
  >,
);

/** The AES-256 key derived from the deployment's envelope secret, and its public id. */
export interface EnvelopeKey {
  readonly keyId: string;
  readonly key: Buffer;
}

export type EnvelopeFailure = 'malformed' | 'wrong-key' | 'does-not-open';

export class SidecarEnvelopeError extends Error {
  override readonly name = 'SidecarEnvelopeError';
  constructor(
    readonly reason: EnvelopeFailure,
    message: string,
  ) {
    super(message);
  }
}

/** HKDF-SHA256 of the secret's text: no custom resource has to make a binary key at deploy. */
export function envelopeKeyFromSecret(secret: string): EnvelopeKey {
  if (secret.length < minSecretChars) {
    throw new SidecarEnvelopeError('malformed', `The sidecar envelope secret is under ${minSecretChars} characters.`);
  }
  const derive = (info: string, length: number) =>
    Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), envelopeLabel, info, length));
  return { keyId: derive('key-id', keyIdBytes).toString('base64url'), key: derive('aes-256-gcm', keyBytes) };
}

const aad = (keyId: string, roomId: string) => Buffer.from(`${envelopeLabel}\n${keyId}\n${roomId}`);

/** `v1.<key id>.<iv>.<ciphertext‖tag>`, each part base64url: what SIDECAR_SEALED holds. */
export function sealSidecarVariables(key: EnvelopeKey, roomId: string, variables: SealedVariables): string {
  const iv = randomBytes(ivBytes);
  const cipher = createCipheriv('aes-256-gcm', key.key, iv, { authTagLength: tagBytes });
  cipher.setAAD(aad(key.keyId, roomId));
  // Deflated first: base64 text (the session token) carries 6 bits a character, and the
  // blob's base64url would otherwise take 4/3 of RunTask's overrides for it. Every byte
  // compressed is a secret: no attacker-chosen text shares the blob, so its length tells nothing.
  const plaintext = deflateRawSync(JSON.stringify(sealedVariablesSchema.parse(variables)), { level: 9 });
  const data = Buffer.concat([cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return ['v1', key.keyId, iv.toString('base64url'), data.toString('base64url')].join('.');
}

const sealedTextPattern = /^v1\.([A-Za-z0-9_-]{8})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]{22,})$/;

/**
 * Opens SIDECAR_SEALED for `roomId`. Throws SidecarEnvelopeError: `wrong-key` when it was
 * sealed under another key id, `does-not-open` when altered or sealed for another room,
 * `malformed` otherwise. Messages carry key ids only, never key or plaintext material.
 */
export function openSidecarVariables(key: EnvelopeKey, roomId: string, sealed: string): SealedVariables {
  const match = sealedTextPattern.exec(sealed.trim());
  if (!match) throw new SidecarEnvelopeError('malformed', 'SIDECAR_SEALED is not a sealed sidecar environment.');
  const [, keyId = '', iv = '', encoded = ''] = match;
  if (keyId !== key.keyId) {
    throw new SidecarEnvelopeError(
      'wrong-key',
      `SIDECAR_SEALED was sealed with envelope key ${keyId}; this container was given key ${key.keyId}.`,
    );
  }
  const data = Buffer.from(encoded, 'base64url');
  let plaintext: string;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key.key, Buffer.from(iv, 'base64url'), {
      authTagLength: tagBytes,
    });
    decipher.setAAD(aad(keyId, roomId));
    decipher.setAuthTag(data.subarray(data.length - tagBytes));
    const deflated = Buffer.concat([decipher.update(data.subarray(0, data.length - tagBytes)), decipher.final()]);
    plaintext = inflateRawSync(deflated, { maxOutputLength: maxPlaintextBytes }).toString('utf8');
  } catch {
    throw new SidecarEnvelopeError(
      'does-not-open',
      `SIDECAR_SEALED does not open for room ${roomId}: altered, or sealed for another room.`,
    );
  }
  const parsed = sealedVariablesSchema.safeParse(JSON.parse(plaintext));
  if (!parsed.success) throw new SidecarEnvelopeError('malformed', 'SIDECAR_SEALED holds unexpected variables.');
  return parsed.data;
}
