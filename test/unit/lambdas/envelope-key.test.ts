import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { envelopeKeyFromSecret } from '../../../core/gameservers/sidecar-envelope';
import { ConfigInvalidError, parseConfig } from '../../../core/infra/config';
import { PlatformCache } from '../../../core/infra/platform-cache';
import { envelopeKeyReader } from '../../../lambdas/dependencies';

/**
 * The functions that start game servers read the sidecar envelope key from Secrets Manager
 * once, and again only after the cache bound (a rotation); a function given no secret ARN
 * reads nothing and refuses to spawn.
 */
const secretsMock = mockClient(SecretsManagerClient);
afterAll(() => secretsMock.restore());
beforeEach(() => secretsMock.reset());

const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:envelope-AbCdEf';
const settings = (extra: Record<string, string> = {}) =>
  parseConfig({ TABLE_NAME: 'rooms', AUTH_ISSUER: 'https://id.example', AUTH_JWKS: '{"keys":[]}', ...extra });

describe('envelopeKeyReader', () => {
  it('reads the secret named by SIDECAR_ENVELOPE_KEY_SECRET_ARN once per cache bound, and derives the key from it', async () => {
    // lru-cache treats a start time of 0 as "no start": the clock starts later.
    let nowMs = 1_000_000;
    const cache = new PlatformCache({ nowMs: () => nowMs });
    secretsMock
      .on(GetSecretValueCommand)
      .resolvesOnce({ SecretString: 'a'.repeat(64) })
      .resolves({ SecretString: 'b'.repeat(64) });
    const read = envelopeKeyReader(settings({ SIDECAR_ENVELOPE_KEY_SECRET_ARN: arn }), cache);

    expect(await read()).toEqual(envelopeKeyFromSecret('a'.repeat(64)));
    nowMs += 59_000;
    expect(await read()).toEqual(envelopeKeyFromSecret('a'.repeat(64)));
    expect(secretsMock.commandCalls(GetSecretValueCommand).map((c) => c.args[0].input)).toEqual([{ SecretId: arn }]);

    // A rotation reaches this process once the bound has passed.
    nowMs += 2_000;
    expect(await read()).toEqual(envelopeKeyFromSecret('b'.repeat(64)));
    expect(secretsMock.commandCalls(GetSecretValueCommand)).toHaveLength(2);
  });

  it('without the ARN (a function that never spawns): no read, and a spawn is refused naming the variable', async () => {
    const read = envelopeKeyReader(settings(), new PlatformCache());
    await expect(read()).rejects.toBeInstanceOf(ConfigInvalidError);
    await expect(read()).rejects.toThrow('SIDECAR_ENVELOPE_KEY_SECRET_ARN');
    expect(secretsMock.commandCalls(GetSecretValueCommand)).toHaveLength(0);
  });
});
