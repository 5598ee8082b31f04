import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mockClient } from 'aws-sdk-client-mock';
import type { JWK } from 'jose';
import { ensureSigningKey, usableSigningKey } from '../../../../core/auth/signing-key-setup';
import { createPlatformTokenVerifier, createTokenSigner, generateSigningKeyPair } from '../../../../core/auth/tokens';
import {
  handleSigningKeyEvent,
  putResponse,
  type CustomResourceResponse,
} from '../../../../lambdas/custom-resource/token-signing-key';

/**
 * Issue 10, point 3: the deploy-time custom resource puts a key the platform's signer accepts
 * into the signing secret when it holds the random placeholder, and never replaces a usable key.
 */
const secretArn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:TokenSigningJwk-AbCdEf';
const placeholder = 'Qm9ndXNwbGFjZWhvbGRlcnZhbHVlMTIz'; // what generateSecretString leaves there
const now = new Date('2026-11-23T12:00:00.000Z');
const secrets = mockClient(SecretsManagerClient);
const client = new SecretsManagerClient({ region: 'eu-west-1' });

beforeEach(() => secrets.reset());
afterAll(() => secrets.restore());

function event(type: 'Create' | 'Update' | 'Delete', extra: Record<string, unknown> = {}) {
  return {
    RequestType: type,
    RequestId: '6f1c1a2e-3b4d-4c5e-8f90-0a1b2c3d4e5f',
    ResponseURL: 'https://cloudformation-custom-resource-response.s3.amazonaws.com/pre-signed',
    StackId: 'arn:aws:cloudformation:eu-west-1:123456789012:stack/Roomkeeper-prod/1',
    LogicalResourceId: 'TokenSigningKey',
    ResourceType: 'Custom::TokenSigningKey',
    ServiceToken: 'arn:aws:lambda:eu-west-1:123456789012:function:provisioner',
    ResourceProperties: { ServiceToken: 'x', SecretId: secretArn },
    ...extra,
  };
}

async function run(raw: unknown) {
  const responses: CustomResourceResponse[] = [];
  await handleSigningKeyEvent(raw, {
    secrets: client,
    now: () => now,
    respond: async (_url, response) => {
      responses.push(response);
    },
  });
  return responses;
}

const putKey = () => {
  const puts = secrets.commandCalls(PutSecretValueCommand);
  expect(puts).toHaveLength(1);
  return { input: puts[0]!.args[0].input, jwk: JSON.parse(puts[0]!.args[0].input.SecretString!) as JWK };
};

describe('ensureSigningKey', () => {
  it('replaces the random placeholder with an Ed25519 private JWK with a kid, once per request', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: placeholder });
    secrets.on(PutSecretValueCommand).resolves({});

    const result = await ensureSigningKey(client, secretArn, { now, requestToken: event('Create').RequestId });

    expect(secrets.commandCalls(GetSecretValueCommand)[0]!.args[0].input).toEqual({ SecretId: secretArn });
    const { input, jwk } = putKey();
    expect(input.SecretId).toBe(secretArn);
    // A retried request writes the same version, never a second key.
    expect(input.ClientRequestToken).toBe(event('Create').RequestId);
    expect(jwk).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA' });
    expect(jwk.d).toEqual(expect.any(String));
    expect(jwk.kid).toMatch(/^roomkeeper-2026-11-23-[0-9a-f]{8}$/);
    expect(result.outcome).toBe('created');
    expect(result.publicJwk).toEqual({ kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: jwk.kid, alg: 'EdDSA', use: 'sig' });
  });

  it('the key it puts is importable by the platform signer, and its tokens verify against the public half', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: placeholder });
    secrets.on(PutSecretValueCommand).resolves({});
    const { publicJwk } = await ensureSigningKey(client, secretArn, { now });
    const { jwk } = putKey();
    expect(await usableSigningKey(JSON.stringify(jwk))).toBeDefined();

    const sign = createTokenSigner(jwk, 'roomkeeper-platform');
    const token = await sign({ account: 'room:r1', scopes: ['server'], ttlS: 60, audience: 'roomkeeper-server' });
    const verify = createPlatformTokenVerifier({
      issuer: 'roomkeeper-platform',
      jwks: JSON.stringify({ keys: [publicJwk] }),
    });
    await expect(verify(token, 'roomkeeper-server')).resolves.toMatchObject({ account: 'room:r1' });
  });

  it('keeps a usable key (an operator’s or an earlier deploy’s): no PutSecretValue', async () => {
    const { privateJwk } = await generateSigningKeyPair('operator-2026-01');
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(privateJwk) });

    const result = await ensureSigningKey(client, secretArn, { now });

    expect(result.outcome).toBe('kept');
    expect(result.publicJwk.kid).toBe('operator-2026-01');
    expect(result.publicJwk).not.toHaveProperty('d');
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it.each([
    ['not JSON', 'not-a-key'],
    ['an RSA key', JSON.stringify({ kty: 'RSA', n: 'abc', e: 'AQAB', d: 'xyz', kid: 'k' })],
    ['a public key only', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'abc', kid: 'k' })],
    ['a key without kid', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: 'abc', d: 'def' })],
    ['an Ed25519 key that does not import', JSON.stringify({ kty: 'OKP', crv: 'Ed25519', x: '!!', d: '!!', kid: 'k' })],
  ])('replaces %s', async (_name, value) => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: value });
    secrets.on(PutSecretValueCommand).resolves({});
    expect((await ensureSigningKey(client, secretArn, { now })).outcome).toBe('created');
    expect(putKey().jwk.kty).toBe('OKP');
  });

  it('a secret with no value yet counts as a placeholder', async () => {
    secrets
      .on(GetSecretValueCommand)
      .rejects(new ResourceNotFoundException({ message: 'no AWSCURRENT version', $metadata: {} }));
    secrets.on(PutSecretValueCommand).resolves({});
    expect((await ensureSigningKey(client, secretArn, { now })).outcome).toBe('created');
  });
});

describe('the custom resource handler', () => {
  it('Create: answers SUCCESS with the kid and the public key set, never the private key', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: placeholder });
    secrets.on(PutSecretValueCommand).resolves({});

    const [response] = await run(event('Create'));

    const { jwk } = putKey();
    expect(response).toMatchObject({
      Status: 'SUCCESS',
      PhysicalResourceId: `${secretArn}#token-signing-key`,
      RequestId: event('Create').RequestId,
      LogicalResourceId: 'TokenSigningKey',
      Data: { Kid: jwk.kid },
    });
    expect(JSON.parse(response!.Data!.PublicJwks!)).toEqual({
      keys: [{ kty: 'OKP', crv: 'Ed25519', x: jwk.x, kid: jwk.kid, alg: 'EdDSA', use: 'sig' }],
    });
    expect(JSON.stringify(response)).not.toContain(jwk.d);
  });

  it('Update with a usable key: SUCCESS, same physical id, the key kept', async () => {
    const { privateJwk } = await generateSigningKeyPair('kept-key');
    secrets.on(GetSecretValueCommand).resolves({ SecretString: JSON.stringify(privateJwk) });

    const [response] = await run(event('Update', { PhysicalResourceId: 'the-first-id' }));

    expect(response).toMatchObject({
      Status: 'SUCCESS',
      PhysicalResourceId: 'the-first-id',
      Data: { Kid: 'kept-key' },
    });
    expect(secrets.commandCalls(PutSecretValueCommand)).toHaveLength(0);
  });

  it('Delete: SUCCESS and no call to Secrets Manager', async () => {
    const [response] = await run(event('Delete', { PhysicalResourceId: 'the-first-id' }));
    expect(response).toMatchObject({ Status: 'SUCCESS', PhysicalResourceId: 'the-first-id' });
    expect(secrets.calls()).toHaveLength(0);
  });

  it('a Secrets Manager failure answers FAILED (CloudFormation rolls back instead of waiting an hour)', async () => {
    secrets.on(GetSecretValueCommand).rejects(new Error('AccessDenied'));
    const [response] = await run(event('Create'));
    expect(response).toMatchObject({ Status: 'FAILED', Reason: expect.stringContaining('AccessDenied') });
  });

  it('a request without SecretId answers FAILED', async () => {
    const [response] = await run(event('Create', { ResourceProperties: {} }));
    expect(response).toMatchObject({
      Status: 'FAILED',
      Reason: expect.stringContaining('ResourceProperties.SecretId'),
    });
    expect(secrets.calls()).toHaveLength(0);
  });
});

describe('putResponse', () => {
  it('PUTs the JSON response with an empty content type, as the pre-signed S3 URL expects', async () => {
    const received: { method?: string; url?: string; headers?: IncomingHttpHeaders; body: string }[] = [];
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push({ method: req.method, url: req.url, headers: req.headers, body });
        res.end();
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const response: CustomResourceResponse = {
        Status: 'SUCCESS',
        PhysicalResourceId: 'id',
        StackId: 'stack',
        RequestId: 'request',
        LogicalResourceId: 'TokenSigningKey',
        Data: { Kid: 'k' },
      };
      await putResponse(`http://127.0.0.1:${port}/pre-signed?X-Amz-Signature=abc`, response);
      expect(received).toEqual([
        expect.objectContaining({
          method: 'PUT',
          url: '/pre-signed?X-Amz-Signature=abc',
          body: JSON.stringify(response),
        }),
      ]);
      expect(received[0]!.headers!['content-type']).toBe('');
    } finally {
      server.close();
    }
  });
});
