/**
 * The shapes of audience claims an identity provider's token can take, and whether API
 * Gateway's JWT authorizer lets each through for an API whose audience is `audience`. The
 * handler tests (unit) and the CDK tests run the same shapes, so the authorizer and the
 * handler cannot drift apart again.
 */
export interface AudienceShape {
  readonly name: string;
  /** Claims beside `iss`, `sub`, `iat`, `exp` and `scope`. */
  readonly claims: Readonly<Record<string, unknown>>;
}

export function audienceShapes(audience: string): AudienceShape[] {
  return [
    { name: 'aud naming the API', claims: { aud: audience } },
    { name: 'aud array holding the API among others', claims: { aud: ['other-api', audience] } },
    {
      name: 'Cognito access token: client_id naming the API, no aud',
      claims: { client_id: audience, token_use: 'access' },
    },
    { name: 'neither aud nor client_id', claims: {} },
    { name: 'aud naming another API', claims: { aud: 'other-api' } },
    { name: 'empty aud array', claims: { aud: [] } },
    { name: 'client_id naming another client, no aud', claims: { client_id: 'other-client' } },
    { name: 'aud naming another API, client_id naming this one', claims: { aud: 'other-api', client_id: audience } },
  ];
}

/**
 * API Gateway's rule, as AWS documents it for HTTP API JWT authorizers: "The aud or
 * client_id claim must match one of the audience entries configured for the authorizer.
 * API Gateway validates client_id only if aud is not present."
 */
export function apiGatewayAccepts(claims: Readonly<Record<string, unknown>>, configured: readonly string[]): boolean {
  if (claims.aud !== undefined) {
    const auds = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    return auds.some((aud) => typeof aud === 'string' && configured.includes(aud));
  }
  return typeof claims.client_id === 'string' && configured.includes(claims.client_id);
}
