import { createHash, randomBytes } from 'node:crypto';

/**
 * Registration keys: 256 random bits from the OS CSPRNG, URL-safe, carrying no ids. Only
 * their SHA-256 is stored, so a leaked table cannot be replayed against a game server.
 */
export function generateRegistrationKey(): string {
  return randomBytes(32).toString('base64url');
}

export function hashRegistrationKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
