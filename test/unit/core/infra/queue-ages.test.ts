import { CloudWatchClient, GetMetricDataCommand } from '@aws-sdk/client-cloudwatch';
import { mockClient } from 'aws-sdk-client-mock';
import { cloudWatchQueueAges } from '../../../../core/infra/queue-ages';

/** CloudWatch has no local engine: the mock checks the GetMetricData request the platform sends. */
const cloudWatch = mockClient(CloudWatchClient);
afterEach(() => cloudWatch.reset());

it('asks GetMetricData for each queue’s latest ApproximateAgeOfOldestMessage and reads the newest value', async () => {
  cloudWatch.on(GetMetricDataCommand).resolves({
    MetricDataResults: [
      { Id: 'q0', Values: [42, 7], Timestamps: [new Date('2026-03-02T11:59:00Z'), new Date('2026-03-02T11:58:00Z')] },
      { Id: 'q1', Values: [], Timestamps: [] },
    ],
  });
  const ages = cloudWatchQueueAges(new CloudWatchClient({ region: 'eu-west-1' }));
  const names = ['rk-controller-requests.fifo', 'rk-controller-requests-dlq.fifo'];
  const found = await ages(names, new Date('2026-03-02T12:00:00.000Z'));

  expect([...found]).toEqual([['rk-controller-requests.fifo', 42]]);
  const sent = cloudWatch.commandCalls(GetMetricDataCommand).map((call) => call.args[0].input);
  expect(sent).toEqual([
    {
      StartTime: new Date('2026-03-02T11:45:00.000Z'),
      EndTime: new Date('2026-03-02T12:00:00.000Z'),
      ScanBy: 'TimestampDescending',
      MetricDataQueries: names.map((name, i) => ({
        Id: `q${i}`,
        MetricStat: {
          Metric: {
            Namespace: 'AWS/SQS',
            MetricName: 'ApproximateAgeOfOldestMessage',
            Dimensions: [{ Name: 'QueueName', Value: name }],
          },
          Period: 60,
          Stat: 'Maximum',
        },
      })),
    },
  ]);
});

it('sends nothing for no queues', async () => {
  const ages = cloudWatchQueueAges(new CloudWatchClient({ region: 'eu-west-1' }));
  expect((await ages([], new Date())).size).toBe(0);
  expect(cloudWatch.commandCalls(GetMetricDataCommand)).toHaveLength(0);
});
