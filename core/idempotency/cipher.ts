import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Stored answers hold registration keys, which are secrets: they are kept encrypted with
 * AES-256-GCM under a key derived (HKDF-SHA-256) from the platform's signing key, so the table
 * holds nothing a reader of it could use. The additional data binds a ciphertext to its record,
 * so an answer copied to another record does not decrypt.
 */
const idempotencyKeyLabel = 'roomkeeper/idempotency/v1';
const version = 'v1';

/** Derives the 256-bit encryption key from secret key material (the Ed25519 private key's `d`). */
export function deriveIdempotencyKey(secret: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), idempotencyKeyLabel, 32));
}

export function seal(key: Buffer, plaintext: string, associatedData: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(associatedData));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [version, ...[iv, cipher.getAuthTag(), ciphertext].map((part) => part.toString('base64url'))].join('.');
}

/** @throws Error when the text was not sealed with this key and associated data. */
export function open(key: Buffer, sealed: string, associatedData: string): string {
  const [tag, iv, authTag, ciphertext] = sealed.split('.');
  if (tag !== version || !iv || !authTag || ciphertext === undefined) {
    throw new Error('not a sealed idempotency answer');
  }
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(associatedData));
  decipher.setAuthTag(Buffer.from(authTag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString('utf8');
}
