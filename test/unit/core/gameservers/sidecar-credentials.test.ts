import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { SpawnFailedError } from '../../../../core/gameservers/errors';
import {
  sidecarSessionName,
  sidecarSessionPolicy,
  siblingQueueArn,
  stsSidecarCredentials,
} from '../../../../core/gameservers/sidecar-credentials';

const stsMock = mockClient(STSClient);
const settings = {
  roleArn: 'arn:aws:iam::111122223333:role/rk-sidecar',
  requestQueueArn: 'arn:aws:sqs:eu-west-1:111122223333:rk-controller-requests.fifo',
  replyQueuePrefix: 'rk-reply-',
};

beforeEach(() => stsMock.reset());

describe('sidecar-credentials', () => {
  it("scopes a session to exactly the room's reply and assign queues and SendMessage on the request queue", () => {
    const assignQueue = 'arn:aws:sqs:eu-west-1:111122223333:rk-reply-room-1-assign';
    expect(JSON.parse(sidecarSessionPolicy(settings, 'room-1', 1))).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [settings.requestQueueArn, assignQueue] },
        {
          Effect: 'Allow',
          Action: ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:DeleteQueue'],
          Resource: [
            'arn:aws:sqs:eu-west-1:111122223333:rk-reply-room-1',
            'arn:aws:sqs:eu-west-1:111122223333:rk-reply-room-1.fifo',
          ],
        },
        // Its assign queue: created, answered into and deleted, never read by the sidecar.
        { Effect: 'Allow', Action: ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:DeleteQueue'], Resource: assignQueue },
      ],
    });
    expect(sidecarSessionPolicy(settings, 'room-1', 1)).not.toContain('*');
  });

  it("scopes a replacement server's session to its own epoch's reply queue, by its full name", async () => {
    const own = 'arn:aws:sqs:eu-west-1:111122223333:rk-reply-room-1-e2';
    const policy = JSON.parse(sidecarSessionPolicy(settings, 'room-1', 2));
    expect(policy.Statement).toEqual([
      // A replacement is never a standby server: no assign queue.
      { Effect: 'Allow', Action: 'sqs:SendMessage', Resource: [settings.requestQueueArn] },
      {
        Effect: 'Allow',
        Action: ['sqs:CreateQueue', 'sqs:GetQueueUrl', 'sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:DeleteQueue'],
        Resource: [own, `${own}.fifo`],
      },
    ]);
    expect(sidecarSessionPolicy(settings, 'room-1', 2)).not.toContain('*');

    stsMock.on(AssumeRoleCommand).resolves({
      Credentials: { AccessKeyId: 'ASIA1', SecretAccessKey: 's', SessionToken: 't', Expiration: new Date(0) },
    });
    await stsSidecarCredentials(new STSClient({ region: 'eu-west-1' }), settings)('room-1', 2);
    expect(stsMock.commandCalls(AssumeRoleCommand)[0]?.args[0].input.Policy).toBe(
      sidecarSessionPolicy(settings, 'room-1', 2),
    );
  });

  it('refuses an ARN that is not a queue', () => {
    expect(() => siblingQueueArn('arn:aws:iam::1:role/x', 'q')).toThrow('Not an SQS queue ARN');
  });

  it('makes a valid session name of any room id', () => {
    expect(sidecarSessionName('a/b c')).toBe('room-a-b-c');
    expect(sidecarSessionName('x'.repeat(100))).toHaveLength(64);
  });

  it('assumes the sidecar role for one hour with the session policy', async () => {
    stsMock.on(AssumeRoleCommand).resolves({
      Credentials: {
        AccessKeyId: 'ASIA1',
        SecretAccessKey: 's',
        SessionToken: 't',
        Expiration: new Date('2026-01-01T01:00:00.000Z'),
      },
    });
    const issue = stsSidecarCredentials(new STSClient({ region: 'eu-west-1' }), settings);
    await expect(issue('room-1', 1)).resolves.toEqual({
      accessKeyId: 'ASIA1',
      secretAccessKey: 's',
      sessionToken: 't',
      expiration: '2026-01-01T01:00:00.000Z',
    });
    expect(stsMock.commandCalls(AssumeRoleCommand)[0]?.args[0].input).toEqual({
      RoleArn: settings.roleArn,
      RoleSessionName: 'room-room-1',
      Policy: sidecarSessionPolicy(settings, 'room-1', 1),
      DurationSeconds: 3600,
    });
  });

  it.each([
    ['STS refuses', () => stsMock.on(AssumeRoleCommand).rejects(new Error('AccessDenied'))],
    ['STS answers without credentials', () => stsMock.on(AssumeRoleCommand).resolves({})],
  ])('throws SpawnFailedError when %s', async (_name, arrange) => {
    arrange();
    const issue = stsSidecarCredentials(new STSClient({ region: 'eu-west-1' }), settings);
    await expect(issue('room-1', 1)).rejects.toBeInstanceOf(SpawnFailedError);
  });
});
