import { createHash, createHmac } from 'node:crypto';
import { DescribeTasksCommand, ECSClient } from '@aws-sdk/client-ecs';
import { mockClient } from 'aws-sdk-client-mock';
import { SignatureV4 } from '@smithy/signature-v4';
import { ec2PublicIpLookup, ecsTaskLocator, signQuery } from '../../../../core/gameservers/ecs-task-address';

const ecsMock = mockClient(ECSClient);
beforeEach(() => ecsMock.reset());

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'session' };
const now = new Date('2026-01-01T12:00:00.000Z');
const taskArn = 'arn:aws:ecs:eu-west-1:111122223333:task/rk-game-servers/abc';

const describeNetworkInterfacesXml = (association: string) => `<?xml version="1.0" encoding="UTF-8"?>
<DescribeNetworkInterfacesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
  <requestId>r-1</requestId>
  <networkInterfaceSet><item>
    <networkInterfaceId>eni-0abc</networkInterfaceId>
    <privateIpAddress>10.0.1.5</privateIpAddress>
    ${association}
  </item></networkInterfaceSet>
</DescribeNetworkInterfacesResponse>`;

function recordingFetch(status: number, body: string) {
  const calls: { url: string; init: RequestInit }[] = [];
  const fetcher = (url: string | URL | Request, init?: RequestInit) => {
    calls.push({ url: String(url), init: init ?? {} });
    return Promise.resolve(new Response(body, { status }));
  };
  return { calls, fetch: fetcher as typeof fetch };
}

describe('ECS task address (DescribeTasks → DescribeNetworkInterfaces)', () => {
  it('asks ECS for exactly the room task in the cluster, then EC2 for exactly its ENI, and returns the public IPv4', async () => {
    ecsMock.on(DescribeTasksCommand).resolves({
      tasks: [
        {
          taskArn,
          attachments: [
            {
              type: 'ElasticNetworkInterface',
              details: [
                { name: 'subnetId', value: 'subnet-a' },
                { name: 'networkInterfaceId', value: 'eni-0abc' },
                { name: 'privateIPv4Address', value: '10.0.1.5' },
              ],
            },
          ],
        },
      ],
    });
    const ec2 = recordingFetch(
      200,
      describeNetworkInterfacesXml(
        '<association><publicIp>203.0.113.7</publicIp><ipOwnerId>amazon</ipOwnerId></association>',
      ),
    );
    const locate = ecsTaskLocator(
      new ECSClient({ region: 'eu-west-1' }),
      'rk-game-servers',
      ec2PublicIpLookup({
        region: 'eu-west-1',
        credentials: () => Promise.resolve(credentials),
        fetch: ec2.fetch,
        now: () => now,
      }),
    );

    await expect(
      locate({ roomId: 'room-1', placement: { taskId: taskArn, host: 'pending', ports: [7777] } }),
    ).resolves.toBe('203.0.113.7');

    expect(ecsMock.commandCalls(DescribeTasksCommand).map((call) => call.args[0].input)).toEqual([
      { cluster: 'rk-game-servers', tasks: [taskArn] },
    ]);
    expect(ec2.calls).toHaveLength(1);
    const [call] = ec2.calls;
    expect(call!.url).toBe('https://ec2.eu-west-1.amazonaws.com/');
    expect(call!.init.method).toBe('POST');
    expect(Object.fromEntries(new URLSearchParams(call!.init.body as string))).toEqual({
      Action: 'DescribeNetworkInterfaces',
      Version: '2016-11-15',
      'NetworkInterfaceId.1': 'eni-0abc',
    });
    const headers = call!.init.headers as Record<string, string>;
    expect(headers['x-amz-security-token']).toBe('session');
    expect(headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20260101\/eu-west-1\/ec2\/aws4_request, SignedHeaders=content-type;host;x-amz-date;x-amz-security-token, Signature=[0-9a-f]{64}$/,
    );
  });

  it('knows no address while the ENI has no public IP, the task has no ENI yet, or the room has no task yet', async () => {
    const noPublicIp = recordingFetch(200, describeNetworkInterfacesXml(''));
    const lookup = ec2PublicIpLookup({
      region: 'eu-west-1',
      credentials: () => Promise.resolve(credentials),
      fetch: noPublicIp.fetch,
    });
    await expect(lookup('eni-0abc')).resolves.toBeUndefined();

    ecsMock.on(DescribeTasksCommand).resolves({ tasks: [{ taskArn, attachments: [] }] });
    const locate = ecsTaskLocator(new ECSClient({ region: 'eu-west-1' }), 'c', lookup);
    await expect(
      locate({ roomId: 'r', placement: { taskId: taskArn, host: 'pending', ports: [] } }),
    ).resolves.toBeUndefined();
    await expect(locate({ roomId: 'r' })).resolves.toBeUndefined();
    expect(ecsMock.commandCalls(DescribeTasksCommand)).toHaveLength(1);
    expect(noPublicIp.calls).toHaveLength(1);
  });

  it('a deleted interface is no address; any other EC2 error is thrown (the message is retried)', async () => {
    const gone = recordingFetch(
      400,
      '<Response><Errors><Error><Code>InvalidNetworkInterfaceID.NotFound</Code></Error></Errors></Response>',
    );
    await expect(
      ec2PublicIpLookup({ region: 'eu-west-1', credentials: () => Promise.resolve(credentials), fetch: gone.fetch })(
        'eni-x',
      ),
    ).resolves.toBeUndefined();
    const denied = recordingFetch(
      403,
      '<Response><Errors><Error><Code>UnauthorizedOperation</Code></Error></Errors></Response>',
    );
    await expect(
      ec2PublicIpLookup({ region: 'eu-west-1', credentials: () => Promise.resolve(credentials), fetch: denied.fetch })(
        'eni-x',
      ),
    ).rejects.toThrow('UnauthorizedOperation');
  });

  it('signs exactly as the AWS SDK signer (SigV4) does', async () => {
    const bytes = (data: Uint8Array | string | ArrayBuffer | ArrayBufferView): Buffer =>
      typeof data === 'string'
        ? Buffer.from(data)
        : data instanceof ArrayBuffer
          ? Buffer.from(data)
          : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    class Sha256 {
      private readonly hash;
      constructor(secret?: Uint8Array | string | ArrayBuffer | ArrayBufferView) {
        this.hash = secret ? createHmac('sha256', bytes(secret)) : createHash('sha256');
      }
      update(data: Uint8Array | string | ArrayBuffer | ArrayBufferView) {
        this.hash.update(bytes(data));
      }
      digest() {
        return Promise.resolve(new Uint8Array(this.hash.digest()));
      }
    }
    const body = 'Action=DescribeNetworkInterfaces&Version=2016-11-15&NetworkInterfaceId.1=eni-0abc';
    const ours = signQuery({
      host: 'ec2.eu-west-1.amazonaws.com',
      region: 'eu-west-1',
      service: 'ec2',
      body,
      credentials,
      now,
    });
    const sdk = await new SignatureV4({
      service: 'ec2',
      region: 'eu-west-1',
      credentials,
      sha256: Sha256,
      applyChecksum: false,
    }).sign(
      {
        method: 'POST',
        protocol: 'https:',
        hostname: 'ec2.eu-west-1.amazonaws.com',
        path: '/',
        query: {},
        headers: { 'content-type': ours['content-type']!, host: 'ec2.eu-west-1.amazonaws.com' },
        body,
      },
      { signingDate: now },
    );
    expect(ours.authorization).toBe(sdk.headers.authorization);
  });
});
