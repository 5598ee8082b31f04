import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as z from 'zod';
import { ensureSigningKey } from '../../core/auth/signing-key-setup';
import { childLogger } from '../../core/infra/logger';

/**
 * The CloudFormation custom resource `Custom::TokenSigningKey` (cdk/lib/constructs/
 * token-signing-key.ts). Create and Update put a fresh Ed25519 private JWK into the secret
 * unless it already holds a usable one; Delete does nothing (the secret's own removal policy
 * decides). The function is the service token itself, so it answers CloudFormation's
 * pre-signed response URL itself.
 */

const log = childLogger('token-signing-key');

const eventSchema = z.object({
  RequestType: z.enum(['Create', 'Update', 'Delete']),
  RequestId: z.string().min(1),
  ResponseURL: z.url(),
  StackId: z.string().min(1),
  LogicalResourceId: z.string().min(1),
  PhysicalResourceId: z.string().optional(),
  ResourceProperties: z.looseObject({ SecretId: z.string().min(1) }),
});

export type SigningKeyEvent = z.infer<typeof eventSchema>;

export interface CustomResourceResponse {
  readonly Status: 'SUCCESS' | 'FAILED';
  readonly Reason?: string;
  readonly PhysicalResourceId: string;
  readonly StackId: string;
  readonly RequestId: string;
  readonly LogicalResourceId: string;
  readonly Data?: Readonly<Record<string, string>>;
}

export interface SigningKeyDependencies {
  readonly secrets: SecretsManagerClient;
  readonly now: () => Date;
  /** PUTs the response to CloudFormation's pre-signed URL. */
  readonly respond: (url: string, response: CustomResourceResponse) => Promise<void>;
}

/** Answers the pre-signed S3 URL as CloudFormation expects: a PUT with an empty content type. */
export function putResponse(url: string, response: CustomResourceResponse): Promise<void> {
  const body = JSON.stringify(response);
  return new Promise((resolve, reject) => {
    // CloudFormation's URLs are HTTPS; plain HTTP only serves tests.
    const request = new URL(url).protocol === 'http:' ? httpRequest : httpsRequest;
    const req = request(
      url,
      { method: 'PUT', headers: { 'content-type': '', 'content-length': Buffer.byteLength(body) } },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode !== undefined && res.statusCode < 300
            ? resolve()
            : reject(new Error(`CloudFormation response URL answered ${res.statusCode}`)),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export async function handleSigningKeyEvent(raw: unknown, deps: SigningKeyDependencies): Promise<void> {
  const parsed = eventSchema.safeParse(raw);
  if (!parsed.success) {
    // Still answer when possible: an unanswered request holds the stack for an hour.
    const r = (raw ?? {}) as Record<string, unknown>;
    if (typeof r.ResponseURL !== 'string') throw new Error('Not a CloudFormation custom resource request.');
    await deps.respond(r.ResponseURL, {
      Status: 'FAILED',
      Reason: `Invalid request: ${parsed.error.issues.map((i) => i.path.join('.')).join(', ')}`,
      PhysicalResourceId: String(r.PhysicalResourceId ?? r.LogicalResourceId ?? 'token-signing-key'),
      StackId: String(r.StackId),
      RequestId: String(r.RequestId),
      LogicalResourceId: String(r.LogicalResourceId),
    });
    return;
  }
  const event = parsed.data;
  const secretId = event.ResourceProperties.SecretId;
  // Stable across updates: CloudFormation never sees a replacement, so it never sends a Delete for an old one.
  const physicalId = event.PhysicalResourceId ?? `${secretId}#token-signing-key`;
  const base = {
    PhysicalResourceId: physicalId,
    StackId: event.StackId,
    RequestId: event.RequestId,
    LogicalResourceId: event.LogicalResourceId,
  };
  if (event.RequestType === 'Delete') {
    await deps.respond(event.ResponseURL, { ...base, Status: 'SUCCESS' });
    return;
  }
  try {
    const { outcome, publicJwk } = await ensureSigningKey(deps.secrets, secretId, {
      now: deps.now(),
      requestToken: event.RequestId,
    });
    // The kid and the public half only: never the private key.
    log.info('token signing key checked', { outcome, kid: publicJwk.kid });
    await deps.respond(event.ResponseURL, {
      ...base,
      Status: 'SUCCESS',
      Data: { Kid: publicJwk.kid, PublicJwks: JSON.stringify({ keys: [publicJwk] }) },
    });
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : 'unknown error';
    log.error('token signing key could not be ensured', { reason });
    await deps.respond(event.ResponseURL, { ...base, Status: 'FAILED', Reason: reason.slice(0, 500) });
  }
}

export async function handler(event: unknown): Promise<void> {
  const secrets = new SecretsManagerClient({});
  try {
    await handleSigningKeyEvent(event, { secrets, now: () => new Date(), respond: putResponse });
  } finally {
    secrets.destroy();
  }
}
