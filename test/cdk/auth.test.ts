import { Template } from 'aws-cdk-lib/assertions';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { createTokenSigner, createTokenVerifier, generateSigningKeyPair } from '../../core/auth/tokens';
import { parseConfig } from '../../core/infra/config';
import { apiGatewayAccepts, audienceShapes } from '../helpers/token-shapes';
import { auth, gameImage, logicalId, renderedEnvironment, useScratch, type Json } from './support';

/**
 * Issue 8, point 1 (deployed): API Gateway's JWT authorizer and the handlers behind it trust
 * the same issuer and audience, and judge every audience shape alike, so a token the
 * authorizer lets through is never refused by the handler for its audience, nor the reverse.
 */
const { newApp, cleanUp } = useScratch();
const configured = { authIssuer: 'https://idp.example/pool-1', authAudience: 'app-client-1234' };

let template: Template;
let provisionerId: string;
let authorizer: { Issuer: string; Audience: string[] };

beforeAll(() => {
  const stack = addRoomkeeper(newApp({ stage: 'auth', ...auth, ...configured, gameImage }));
  template = Template.fromStack(stack);
  provisionerId = logicalId(stack, stack.signingKey.provisioner);
  const authorizers = Object.values(template.findResources('AWS::ApiGatewayV2::Authorizer'));
  expect(authorizers).toHaveLength(1);
  authorizer = authorizers[0]!.Properties.JwtConfiguration;
});
afterAll(cleanUp);

/** Every platform function's environment as its handler parses it (not the deploy-time signing key provisioner's). */
function functionConfigs() {
  const ids = Object.keys(template.findResources('AWS::Lambda::Function')).filter((id) => id !== provisionerId);
  return ids.map((id) => ({
    id,
    config: parseConfig(renderedEnvironment(template, id)),
  }));
}

describe('the JWT authorizer and the handlers', () => {
  it('the authorizer trusts exactly the authIssuer and authAudience of the CDK context', () => {
    expect(authorizer).toEqual({ Issuer: configured.authIssuer, Audience: [configured.authAudience] });
  });

  it('every function verifies tokens for the same issuer and audience as the authorizer', () => {
    const configs = functionConfigs();
    expect(configs.length).toBeGreaterThan(5);
    for (const { config } of configs) {
      expect(config.auth).toMatchObject({ issuer: authorizer.Issuer, audience: configured.authAudience });
      expect(authorizer.Audience).toEqual([config.auth.audience]);
      expect(config.auth.platformIssuer).not.toBe(authorizer.Issuer);
    }
  });

  it("no function is given a key set of its own: each finds the keys through the issuer's discovery, as the authorizer does", () => {
    const functions = template.findResources('AWS::Lambda::Function');
    expect(Object.keys(functions).length).toBeGreaterThan(5);
    for (const [id, fn] of Object.entries(functions)) {
      const variables = Object.keys((fn.Properties.Environment?.Variables ?? {}) as Json);
      expect({ id, keySetVariables: variables.filter((name) => name.startsWith('AUTH_JWKS')) }).toEqual({
        id,
        keySetVariables: [],
      });
    }
    for (const { config } of functionConfigs()) expect(config.auth.jwks).toBeUndefined();
  });

  it('refuses to synthesize with an authJwksUrl, saying why, so a stale deploy command does not silently mean something else', () => {
    const stale = { stage: 'stale', ...auth, ...configured, gameImage };
    expect(() =>
      addRoomkeeper(newApp({ ...stale, authJwksUrl: 'https://idp.example/pool-1/.well-known/jwks.json' })),
    ).toThrow(
      /CDK context "authJwksUrl" is not accepted: .*authIssuer's OpenID discovery document \(<authIssuer>\/\.well-known\/openid-configuration names its jwks_uri\)/,
    );
  });

  it.each(audienceShapes(configured.authAudience).map((shape) => [shape.name, shape] as const))(
    'a token with %s: the handler decides as the authorizer does',
    async (_name, shape) => {
      const keys = await generateSigningKeyPair('idp');
      const token = await createTokenSigner(
        keys.privateJwk,
        authorizer.Issuer,
      )({ account: 'alice', scopes: [], ttlS: 60, extra: shape.claims });
      // A deployed route function's settings, with its remote key set stood in by a local one.
      const { config } = functionConfigs()[0]!;
      const verify = createTokenVerifier({ ...config.auth, jwks: JSON.stringify(keys.jwks) });
      const handlerAccepts = await verify(token).then(
        () => true,
        () => false,
      );
      expect(handlerAccepts).toBe(apiGatewayAccepts(shape.claims as Json, authorizer.Audience));
    },
  );

  it.each([
    ['an audience in the platform namespace', { authAudience: 'roomkeeper:game-server' }],
    ["the platform's own issuer", { authIssuer: 'roomkeeper-platform' }],
  ])('refuses to synthesize with %s', (_name, context) => {
    expect(() => addRoomkeeper(newApp({ stage: 'bad', ...auth, ...context, gameImage }))).toThrow(
      'Invalid auth settings',
    );
  });
});
