/**
 * The HTTP routes, described once. The CDK stack creates one API Gateway route and one
 * Lambda function per entry from `entry`; the local cloud's gateway serves the same table.
 * This file holds metadata only so the CDK app can read it without loading handler code.
 */
export interface RouteDefinition {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** API Gateway path syntax: `{name}` is a path parameter. */
  readonly path: string;
  /** Module (from the repository root) that exports `handler`. */
  readonly entry: string;
  /** `public` routes skip the JWT authorizer. */
  readonly auth: 'public' | 'jwt';
  /** Present in the local cloud only; never deployed. */
  readonly localOnly?: boolean;
}

export const routes = [
  { id: 'getRoom', method: 'GET', path: '/v1/rooms/{roomId}', entry: 'lambdas/http/rooms/get.ts', auth: 'jwt' },
  {
    id: 'issueDevToken',
    method: 'POST',
    path: '/v1/dev/tokens',
    entry: 'lambdas/http/dev/tokens.ts',
    auth: 'public',
    localOnly: true,
  },
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof routes)[number]['id'];
