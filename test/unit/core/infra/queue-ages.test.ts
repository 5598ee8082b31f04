import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SQSClient } from '@aws-sdk/client-sqs';
import { cloudWatchQueueAges } from '../../../../core/infra/queue-ages';

/**
 * CloudWatch has no local engine: a stand-in endpoint records the GetMetricData request the
 * platform sends (its shape and signature) and answers as CloudWatch's Query protocol does.
 */
const answer = `<GetMetricDataResponse xmlns="http://monitoring.amazonaws.com/doc/2010-08-01/">
  <GetMetricDataResult>
    <MetricDataResults>
      <member>
        <Timestamps><member>2026-03-02T11:59:00Z</member><member>2026-03-02T11:58:00Z</member></Timestamps>
        <Values><member>42.0</member><member>7.0</member></Values>
        <StatusCode>Complete</StatusCode>
        <Id>q0</Id>
        <Label>ApproximateAgeOfOldestMessage</Label>
      </member>
      <member>
        <Id>q1</Id>
        <Timestamps/>
        <Values/>
        <StatusCode>Complete</StatusCode>
      </member>
    </MetricDataResults>
    <Messages/>
  </GetMetricDataResult>
  <ResponseMetadata><RequestId>r</RequestId></ResponseMetadata>
</GetMetricDataResponse>`;

it('asks GetMetricData for each queue’s latest ApproximateAgeOfOldestMessage, signed for monitoring, and reads the newest value', async () => {
  const seen: { headers: IncomingMessage['headers']; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      seen.push({ headers: req.headers, body });
      res.writeHead(200, { 'content-type': 'text/xml' }).end(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const ages = cloudWatchQueueAges({
      region: 'eu-west-1',
      credentials: async () => ({ accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' }),
      // The hash the platform's SQS client signs with, as deployed (lambdas/dependencies.ts).
      sha256: new SQSClient({ region: 'eu-west-1' }).config.sha256,
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    });
    const now = new Date('2026-03-02T12:00:00.000Z');
    const found = await ages(['rk-controller-requests.fifo', 'rk-controller-requests-dlq.fifo'], now);
    expect([...found]).toEqual([['rk-controller-requests.fifo', 42]]);

    const [request] = seen;
    expect(request!.headers.authorization).toMatch(
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/\d{8}\/eu-west-1\/monitoring\/aws4_request, SignedHeaders=.*host/,
    );
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded; charset=utf-8');
    expect(Object.fromEntries(new URLSearchParams(request!.body))).toEqual({
      Action: 'GetMetricData',
      Version: '2010-08-01',
      StartTime: '2026-03-02T11:45:00.000Z',
      EndTime: '2026-03-02T12:00:00.000Z',
      ScanBy: 'TimestampDescending',
      ...Object.fromEntries(
        ['rk-controller-requests.fifo', 'rk-controller-requests-dlq.fifo'].flatMap((name, i) => {
          const q = `MetricDataQueries.member.${i + 1}`;
          return [
            [`${q}.Id`, `q${i}`],
            [`${q}.MetricStat.Metric.Namespace`, 'AWS/SQS'],
            [`${q}.MetricStat.Metric.MetricName`, 'ApproximateAgeOfOldestMessage'],
            [`${q}.MetricStat.Metric.Dimensions.member.1.Name`, 'QueueName'],
            [`${q}.MetricStat.Metric.Dimensions.member.1.Value`, name],
            [`${q}.MetricStat.Period`, '60'],
            [`${q}.MetricStat.Stat`, 'Maximum'],
          ];
        }),
      ),
    });
  } finally {
    server.close();
  }
});
