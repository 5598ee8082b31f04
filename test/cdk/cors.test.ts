import { Template } from 'aws-cdk-lib/assertions';
import { addRoomkeeper } from '../../cdk/lib/roomkeeper-app';
import { auth, gameImage, useScratch, type Json } from './support';

/**
 * CORS deployed: API Gateway's own corsConfiguration on the HTTP API, from the `corsOrigins`
 * context. API Gateway then answers preflights itself (no OPTIONS route, so no authorizer
 * stands in the way) and adds the headers to answers for allowed origins.
 */
const { newApp, cleanUp } = useScratch();
afterAll(cleanUp);

function httpApiOf(context: Json): Json {
  const stack = addRoomkeeper(newApp({ stage: 'test', ...auth, gameImage, ...context }));
  const template = Template.fromStack(stack);
  // The live sessions' WebSocket API has no CORS: browsers do not preflight WebSocket upgrades.
  const apis = Object.values(
    template.findResources('AWS::ApiGatewayV2::Api', { Properties: { ProtocolType: 'HTTP' } }),
  );
  expect(apis).toHaveLength(1);
  const routeKeys = Object.values(template.findResources('AWS::ApiGatewayV2::Route')).map(
    (route) => (route as Json).Properties.RouteKey as string,
  );
  expect(routeKeys.filter((key) => key.startsWith('OPTIONS'))).toEqual([]);
  return (apis[0] as Json).Properties;
}

describe('CORS on the deployed API', () => {
  it('is off without corsOrigins: no CORS configuration at all', () => {
    expect(httpApiOf({}).CorsConfiguration).toBeUndefined();
  });

  it('-c corsOrigins=a,b: API Gateway answers preflights from those origins with the methods and headers the API uses', () => {
    const cors = httpApiOf({ corsOrigins: 'https://play.example.com, http://localhost:5173' })
      .CorsConfiguration as Json;

    expect(cors.AllowOrigins).toEqual(['https://play.example.com', 'http://localhost:5173']);
    expect(cors.AllowMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']));
    expect(cors.AllowHeaders).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'idempotency-key', 'if-match']),
    );
    expect(cors.ExposeHeaders).toEqual(expect.arrayContaining(['etag', 'retry-after', 'x-request-id']));
    expect(cors.MaxAge).toBeGreaterThan(0);
    // Tokens travel in Authorization, never in cookies.
    expect(cors.AllowCredentials).toBeUndefined();
  });

  it("takes a list from cdk.json's context, and * for any origin", () => {
    expect((httpApiOf({ corsOrigins: ['*'] }).CorsConfiguration as Json).AllowOrigins).toEqual(['*']);
  });

  it.each([['https://play.example.com/'], ['play.example.com'], ['https://play.example.com/index.html']])(
    'refuses %s at synthesis, naming it (an origin is scheme, host and port only)',
    (origin) => {
      expect(() => addRoomkeeper(newApp({ stage: 'test', ...auth, gameImage, corsOrigins: origin }))).toThrow(
        new RegExp(`corsOrigins.*${origin.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
      );
    },
  );
});
