import { GetMetricDataCommand, type CloudWatchClient } from '@aws-sdk/client-cloudwatch';

/**
 * The age in seconds of each named queue's oldest message, as far as it is known: SQS itself
 * keeps no such attribute, so deployed it is CloudWatch's `ApproximateAgeOfOldestMessage`
 * (AWS/SQS, one datapoint a minute). A queue with no recent datapoint is absent.
 */
export type QueueAges = (queueNames: readonly string[], now: Date) => Promise<ReadonlyMap<string, number>>;

/** SQS sends its metrics once a minute; a window of a quarter hour finds the last one even when one is late. */
const windowMs = 15 * 60_000;
const periodS = 60;
/** GetMetricData takes at most 500 queries a call (CloudWatch API reference). */
const maxQueries = 500;
const requestTimeoutMs = 5_000;

/**
 * `QueueAges` from CloudWatch's GetMetricData, one call for every queue: the latest `Maximum`
 * of `ApproximateAgeOfOldestMessage` per queue (values come newest first with
 * `ScanBy: TimestampDescending`).
 */
export function cloudWatchQueueAges(cloudWatch: CloudWatchClient): QueueAges {
  return async (queueNames, now) => {
    const names = queueNames.slice(0, maxQueries);
    if (names.length === 0) return new Map();
    const answer = await cloudWatch.send(
      new GetMetricDataCommand({
        StartTime: new Date(now.getTime() - windowMs),
        EndTime: now,
        ScanBy: 'TimestampDescending',
        MetricDataQueries: names.map((name, i) => ({
          Id: `q${i}`,
          MetricStat: {
            Metric: {
              Namespace: 'AWS/SQS',
              MetricName: 'ApproximateAgeOfOldestMessage',
              Dimensions: [{ Name: 'QueueName', Value: name }],
            },
            Period: periodS,
            Stat: 'Maximum',
          },
        })),
      }),
      { abortSignal: AbortSignal.timeout(requestTimeoutMs) },
    );
    const latest = new Map<string, number>();
    for (const result of answer.MetricDataResults ?? []) {
      const value = result.Values?.[0];
      if (result.Id !== undefined && value !== undefined && Number.isFinite(value)) latest.set(result.Id, value);
    }
    return new Map(names.flatMap((name, i) => (latest.has(`q${i}`) ? [[name, latest.get(`q${i}`)!]] : [])));
  };
}
