import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DeleteTableCommand, type CreateTableCommandInput } from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { defaultPlatformIssuer, gameServerAccount, gameServerAudience } from '../../core/auth/token-model';
import { createTokenSigner, generateSigningKeyPair } from '../../core/auth/tokens';
import { createDocumentClient } from '../../core/infra/aws-clients';
import { provideConfigSecrets } from '../../core/infra/config';
import { createTableInput } from '../../core/infra/table';
import { resetPlatform } from '../../lambdas/dependencies';
import type { HttpHandler } from '../../lambdas/http/middleware';
import { routes } from '../../lambdas/http/routes';
import { startApiGateway } from '../../local/api-gateway';
import { httpHandlers } from '../../local/http-handlers';
import { jsonClient } from './http';
import { assertMatchesOpenApi } from './openapi-contract';

export const testIssuer = 'roomkeeper-test';
/** The API audience test platforms demand; `token()` carries it. */
export const testAudience = 'roomkeeper-test-api';

export interface TestPlatform {
  readonly tableName: string;
  readonly db: DynamoDBDocumentClient;
  /** The identity provider's key set of this run (AUTH_JWKS). */
  readonly jwks: string;
  /** The public half of the platform's own signing key (TOKEN_SIGNING_JWK), in no set the API trusts. */
  readonly platformJwks: string;
  /** The identity provider's private key of this run (DEV_SIGNING_JWK), as JSON: tests sign their own tokens with it. */
  readonly devSigningJwk: string;
  /** A bearer token for `account` from this run's identity provider, with the API audience. */
  token(account: string, scopes?: string[], ttlS?: number): Promise<string>;
  /** A game server token for `roomId` (`sub` server:<roomId>) signed with the platform key. */
  serverToken(roomId: string, scopes?: string[], options?: { account?: string; audience?: string }): Promise<string>;
  close(): Promise<void>;
}

export function emulatorEndpoints(): { dynamodb: string; sqs: string } {
  const dynamodb = process.env.ROOMKEEPER_TEST_DYNAMODB_ENDPOINT;
  const sqs = process.env.ROOMKEEPER_TEST_SQS_ENDPOINT;
  if (!dynamodb || !sqs) throw new Error('Emulators are not running: integration tests need the jest global setup.');
  return { dynamodb, sqs };
}

/**
 * The table as deployed, without its stream. DynamoDB Local keeps every stream record of its
 * run, dropped tables' too, and a write to a table created later costs the JVM more the more
 * records it holds: on the one JVM every integration file shares, files late in the run would
 * slow down file after file. Nothing here reads the stream; the local cloud (its own JVM) does,
 * and test/e2e covers it.
 */
export function testTableInput(tableName: string): CreateTableCommandInput {
  const { StreamSpecification: _stream, ...input } = createTableInput(tableName);
  return input;
}

/**
 * A fresh table on the shared DynamoDB Local and a platform configuration pointing at it,
 * so each test file is isolated from the others without starting its own emulator.
 */
export async function startTestPlatform(extraEnv: Record<string, string> = {}): Promise<TestPlatform> {
  const endpoints = emulatorEndpoints();
  const tableName = `rk-test-${randomUUID().slice(0, 12)}`;
  const db = createDocumentClient({ region: 'us-east-1', dynamodbEndpoint: endpoints.dynamodb });
  await db.send(new CreateTableCommand(testTableInput(tableName)));
  const keyPair = await generateSigningKeyPair('test-idp');
  const platformKeyPair = await generateSigningKeyPair('test-platform');
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    TABLE_NAME: tableName,
    DYNAMODB_ENDPOINT: endpoints.dynamodb,
    SQS_ENDPOINT: endpoints.sqs,
    AUTH_ISSUER: testIssuer,
    AUTH_AUDIENCE: testAudience,
    AUTH_JWKS: JSON.stringify(keyPair.jwks),
    ...extraEnv,
  });
  // Configuration, adapters and any `configurePlatform` choice of an earlier test: all rebuilt.
  resetPlatform();
  // The private keys go to the configuration in memory, as the local cloud hands them over:
  // never into process.env, which every child process of the test would inherit.
  const devSigningJwk = JSON.stringify(keyPair.privateJwk);
  provideConfigSecrets({
    DEV_SIGNING_JWK: devSigningJwk,
    TOKEN_SIGNING_JWK: JSON.stringify(platformKeyPair.privateJwk),
  });
  const sign = createTokenSigner(keyPair.privateJwk, testIssuer);
  const signAsPlatform = createTokenSigner(platformKeyPair.privateJwk, defaultPlatformIssuer);
  return {
    tableName,
    db,
    jwks: JSON.stringify(keyPair.jwks),
    platformJwks: JSON.stringify(platformKeyPair.jwks),
    devSigningJwk,
    token: (account, scopes = [], ttlS = 600) => sign({ account, scopes, ttlS, audience: testAudience }),
    serverToken: (roomId, scopes = [], options = {}) =>
      signAsPlatform({
        account: options.account ?? gameServerAccount(roomId),
        scopes,
        ttlS: 600,
        audience: options.audience ?? gameServerAudience,
        extra: { room: roomId },
      }),
    close: async () => {
      resetPlatform();
      await db.send(new DeleteTableCommand({ TableName: tableName }));
      db.destroy();
    },
  };
}

/**
 * The route handlers, each checking its own answer against docs/openapi.json before the
 * gateway sends it: so even a test that calls the API with plain `fetch`, or invokes a
 * handler with an event it built, cannot receive an undocumented response unnoticed. A
 * mismatch is kept (the response still goes out, so the test sees what was served) and
 * `mismatches()` returns them; `startTestApi` fails its `close()` with them.
 */
export function contractCheckedHandlers(handlers: Readonly<Record<string, HttpHandler>>): {
  readonly handlers: Record<string, HttpHandler>;
  mismatches(): string[];
} {
  const found: string[] = [];
  const checked = Object.fromEntries(
    routes.map((route) => {
      const handler = handlers[route.id];
      if (!handler) throw new Error(`No handler for route ${route.id}.`);
      const wrapped: HttpHandler = async (event, context) => {
        const result = await handler(event, context);
        try {
          assertMatchesOpenApi({
            method: route.method,
            path: event.rawPath,
            status: result.statusCode ?? 200,
            headers: Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)])),
            body: result.body ? JSON.parse(result.body) : undefined,
          });
        } catch (error) {
          found.push((error as Error).message);
        }
        return result;
      };
      return [route.id, wrapped];
    }),
  );
  return { handlers: checked, mismatches: () => [...found] };
}

export interface TestApi {
  readonly platform: TestPlatform;
  /** A JSON client for the local API gateway serving every route of the route table. */
  readonly call: ReturnType<typeof jsonClient>;
  readonly url: string;
  /** Closes everything; fails when any handler answered something docs/openapi.json does not describe. */
  close(): Promise<void>;
}

/**
 * A fresh test platform behind the local API gateway, as integration tests of the HTTP routes
 * use it. Every answer is checked against docs/openapi.json twice: by `call` as received,
 * and by each handler as sent (which covers a test's own `fetch` to `url` as well).
 */
export async function startTestApi(extraEnv: Record<string, string> = {}): Promise<TestApi> {
  const platform = await startTestPlatform(extraEnv);
  const checked = contractCheckedHandlers(httpHandlers);
  const gateway = await startApiGateway({ routes, handlers: checked.handlers, port: 0 });
  return {
    platform,
    call: jsonClient(gateway.url),
    url: gateway.url,
    close: async () => {
      await gateway.close();
      await platform.close();
      const mismatches = checked.mismatches();
      if (mismatches.length > 0) throw new Error(mismatches.join('\n\n'));
    },
  };
}
