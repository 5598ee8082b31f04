import { randomBytes } from 'node:crypto';
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { importJWK, type JWK } from 'jose';
import * as z from 'zod';
import { generateSigningKeyPair } from './tokens';

/**
 * What the platform's signer (core/auth/tokens.ts, lambdas/dependencies.ts) accepts: an
 * Ed25519 private JWK. The `kid` is required here too, because verifiers pick the key by it
 * once a second key is published during a rotation (docs/operations.md).
 */
const signingJwkSchema = z.looseObject({
  kty: z.literal('OKP'),
  crv: z.literal('Ed25519'),
  x: z.string().min(1),
  d: z.string().min(1),
  kid: z.string().min(1),
});

/** The public half of a signing key, as verifiers publish it. */
type PublicSigningJwk = Omit<JWK, 'd'> & { kid: string };

/** Parses a secret's value as a usable signing key, or answers undefined (never throws, never logs it). */
export async function usableSigningKey(secretString: string | undefined): Promise<JWK | undefined> {
  if (!secretString) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(secretString);
  } catch {
    return undefined;
  }
  const jwk = signingJwkSchema.safeParse(parsed);
  if (!jwk.success) return undefined;
  try {
    // The signer imports it exactly so; a key that does not import would fail every room creation.
    await importJWK(jwk.data, 'EdDSA');
  } catch {
    return undefined;
  }
  return jwk.data;
}

function publicHalf(jwk: JWK): PublicSigningJwk {
  const { d: _private, ...rest } = jwk;
  return { ...rest, kid: String(jwk.kid), alg: 'EdDSA', use: 'sig' };
}

/** A kid that sorts by creation date and tells keys of one day apart. */
function newKid(now: Date): string {
  return `roomkeeper-${now.toISOString().slice(0, 10)}-${randomBytes(4).toString('hex')}`;
}

export interface EnsureSigningKeyResult {
  /** `kept`: the secret already held a usable key (an operator's, or an earlier deploy's). */
  readonly outcome: 'created' | 'kept';
  readonly publicJwk: PublicSigningJwk;
}

/**
 * Makes the secret hold a usable Ed25519 signing key: generates one only when the current
 * value is not a key (the random placeholder the secret was created with, or garbage), and
 * never replaces a usable key. `requestToken` (the CloudFormation request id) makes a retried
 * put write the same secret version instead of a second key.
 */
export async function ensureSigningKey(
  client: SecretsManagerClient,
  secretId: string,
  options: { now: Date; requestToken?: string },
): Promise<EnsureSigningKeyResult> {
  let current: string | undefined;
  try {
    current = (await client.send(new GetSecretValueCommand({ SecretId: secretId }))).SecretString;
  } catch (error) {
    // A secret without any value yet (created elsewhere without one) is a placeholder too.
    if (!(error instanceof ResourceNotFoundException)) throw error;
  }
  const existing = await usableSigningKey(current);
  if (existing) return { outcome: 'kept', publicJwk: publicHalf(existing) };

  const { privateJwk } = await generateSigningKeyPair(newKid(options.now));
  await client.send(
    new PutSecretValueCommand({
      SecretId: secretId,
      SecretString: JSON.stringify(privateJwk),
      ...(options.requestToken ? { ClientRequestToken: options.requestToken } : {}),
    }),
  );
  return { outcome: 'created', publicJwk: publicHalf(privateJwk) };
}
