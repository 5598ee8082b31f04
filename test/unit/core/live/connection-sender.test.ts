import {
  ApiGatewayManagementApiClient,
  ForbiddenException,
  GoneException,
  PostToConnectionCommand,
} from '@aws-sdk/client-apigatewaymanagementapi';
import { mockClient } from 'aws-sdk-client-mock';
import type { ServerFrame } from '../../../../core/live/messages';
import { apiGatewayConnectionSender, apiGatewayManagementClient } from '../../../../core/live/connection-sender';

/** The deployed sender: API Gateway's connection management API has no local engine, so its requests are asserted. */
const client = new ApiGatewayManagementApiClient({ region: 'eu-west-1', endpoint: 'https://api.example/live' });
const api = mockClient(client);
const sender = apiGatewayConnectionSender(client);

beforeEach(() => api.reset());
afterAll(() => api.restore());

it('posts the frame as JSON bytes to the connection', async () => {
  api.on(PostToConnectionCommand).resolves({});
  const frame: ServerFrame = { type: 'tap', roomId: 'r1', changeNumber: 4, changes: ['members'] };

  expect(await sender.send('L0SM9cOFvHcCIhw=', frame)).toBe('sent');

  const calls = api.commandCalls(PostToConnectionCommand);
  expect(calls).toHaveLength(1);
  const input = calls[0]!.args[0].input;
  expect(input.ConnectionId).toBe('L0SM9cOFvHcCIhw=');
  expect(JSON.parse(new TextDecoder().decode(input.Data as Uint8Array))).toEqual(frame);
});

it("answers 'gone' for a closed connection (410 GoneException) and throws anything else", async () => {
  api.on(PostToConnectionCommand).rejects(new GoneException({ message: 'gone', $metadata: {} }));
  expect(await sender.send('c1', { type: 'pong' })).toBe('gone');

  api.reset();
  api.on(PostToConnectionCommand).rejects(new ForbiddenException({ message: 'no', $metadata: {} }));
  await expect(sender.send('c1', { type: 'pong' })).rejects.toBeInstanceOf(ForbiddenException);
});

it('sends to the stage endpoint it is given', async () => {
  const built = apiGatewayManagementClient('https://abc123.execute-api.eu-west-1.amazonaws.com/live', 'eu-west-1');
  const endpoint = await built.config.endpoint?.();
  expect(endpoint).toMatchObject({ hostname: 'abc123.execute-api.eu-west-1.amazonaws.com', path: '/live' });
  built.destroy();
});
