import {
  ApiGatewayManagementApiClient,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import type { ServerFrame } from './messages';

/**
 * Sends one frame to one live-session socket. `gone`: the connection is closed (the client
 * went away, or the gateway ended it): the caller forgets it (`LiveSubscriptions.forgetConnection`).
 * Any other failure throws.
 */
export interface ConnectionSender {
  send(connectionId: string, frame: ServerFrame): Promise<'sent' | 'gone'>;
}

/**
 * The deployed sender: API Gateway's connection management API (`PostToConnection`) at the
 * WebSocket API's stage endpoint, `https://{apiId}.execute-api.{region}.amazonaws.com/{stage}`
 * (env LIVE_ENDPOINT). A closed connection answers 410 `GoneException`.
 */
export function apiGatewayConnectionSender(client: ApiGatewayManagementApiClient): ConnectionSender {
  const encoder = new TextEncoder();
  return {
    async send(connectionId, frame) {
      try {
        await client.send(
          new PostToConnectionCommand({ ConnectionId: connectionId, Data: encoder.encode(JSON.stringify(frame)) }),
        );
        return 'sent';
      } catch (error) {
        if (error instanceof GoneException || (error as { name?: unknown }).name === 'GoneException') return 'gone';
        throw error;
      }
    },
  };
}

export function apiGatewayManagementClient(endpoint: string, region: string): ApiGatewayManagementApiClient {
  return new ApiGatewayManagementApiClient({ endpoint, region });
}
