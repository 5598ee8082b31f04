import { SignatureV4 } from '@smithy/signature-v4';
import type { AwsCredentialIdentity, ChecksumConstructor, HashConstructor, Provider } from '@smithy/types';
import { SaxesParser } from 'saxes';

/**
 * The age in seconds of each named queue's oldest message, as far as it is known: SQS itself
 * keeps no such attribute, so deployed it is CloudWatch's `ApproximateAgeOfOldestMessage`
 * (AWS/SQS, one datapoint a minute). A queue with no recent datapoint is absent.
 */
export type QueueAges = (queueNames: readonly string[], now: Date) => Promise<ReadonlyMap<string, number>>;

export interface CloudWatchQueueAgesOptions {
  readonly region: string;
  /** The Lambda role's credentials: the SQS client's own provider. */
  readonly credentials: Provider<AwsCredentialIdentity>;
  readonly sha256: ChecksumConstructor | HashConstructor;
  /** Another endpoint than the region's (a test's server). */
  readonly endpoint?: string;
  readonly fetch?: typeof fetch;
}

/** SQS sends its metrics once a minute; a window of a quarter hour finds the last one even when one is late. */
const windowMs = 15 * 60_000;
const periodS = 60;
/** GetMetricData takes at most 500 queries a call (CloudWatch API reference). */
const maxQueries = 500;
const requestTimeoutMs = 5_000;

/**
 * `QueueAges` from CloudWatch's GetMetricData, one call for every queue: the latest `Maximum`
 * of `ApproximateAgeOfOldestMessage` per queue. Sent as CloudWatch's Query protocol (a form
 * POST signed with SigV4 for service `monitoring`), which every CloudWatch endpoint serves,
 * with the credentials the platform's SQS client uses.
 */
export function cloudWatchQueueAges(options: CloudWatchQueueAgesOptions): QueueAges {
  const signer = new SignatureV4({
    service: 'monitoring',
    region: options.region,
    credentials: options.credentials,
    sha256: options.sha256,
  });
  const endpoint = new URL(options.endpoint ?? `https://monitoring.${options.region}.${dnsSuffix(options.region)}/`);
  const send = options.fetch ?? fetch;
  return async (queueNames, now) => {
    const names = queueNames.slice(0, maxQueries);
    if (names.length === 0) return new Map();
    const body = getMetricDataForm(names, now).toString();
    const signed = await signer.sign({
      method: 'POST',
      protocol: endpoint.protocol,
      hostname: endpoint.hostname,
      ...(endpoint.port ? { port: Number(endpoint.port) } : {}),
      path: endpoint.pathname,
      query: {},
      headers: { host: endpoint.host, 'content-type': 'application/x-www-form-urlencoded; charset=utf-8' },
      body,
    });
    const response = await send(endpoint, {
      method: 'POST',
      headers: signed.headers,
      body,
      signal: AbortSignal.timeout(requestTimeoutMs),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`CloudWatch GetMetricData answered ${response.status}: ${text.slice(0, 200)}`);
    const latest = latestValues(text);
    return new Map(names.flatMap((name, i) => (latest.has(`q${i}`) ? [[name, latest.get(`q${i}`)!]] : [])));
  };
}

function dnsSuffix(region: string): string {
  return region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
}

/** The GetMetricData request in the Query protocol's form encoding: one query `q<i>` per queue. */
function getMetricDataForm(queueNames: readonly string[], now: Date): URLSearchParams {
  const form = new URLSearchParams({
    Action: 'GetMetricData',
    Version: '2010-08-01',
    StartTime: new Date(now.getTime() - windowMs).toISOString(),
    EndTime: now.toISOString(),
    ScanBy: 'TimestampDescending',
  });
  queueNames.forEach((name, i) => {
    const query = `MetricDataQueries.member.${i + 1}`;
    form.set(`${query}.Id`, `q${i}`);
    form.set(`${query}.MetricStat.Metric.Namespace`, 'AWS/SQS');
    form.set(`${query}.MetricStat.Metric.MetricName`, 'ApproximateAgeOfOldestMessage');
    form.set(`${query}.MetricStat.Metric.Dimensions.member.1.Name`, 'QueueName');
    form.set(`${query}.MetricStat.Metric.Dimensions.member.1.Value`, name);
    form.set(`${query}.MetricStat.Period`, String(periodS));
    form.set(`${query}.MetricStat.Stat`, 'Maximum');
  });
  return form;
}

/**
 * The first value of each result of a GetMetricDataResponse (values come newest first with
 * `ScanBy: TimestampDescending`), by query id, whatever the order of a result's elements.
 */
function latestValues(xml: string): Map<string, number> {
  const found = new Map<string, number>();
  const path: string[] = [];
  let result: { id?: string; first?: number; depth: number } | undefined;
  const parser = new SaxesParser({ xmlns: false });
  parser.on('opentag', (tag) => {
    path.push(tag.name);
    if (tag.name === 'member' && path.at(-2) === 'MetricDataResults') result = { depth: path.length };
  });
  parser.on('closetag', () => {
    if (result && path.length === result.depth) {
      if (result.id !== undefined && result.first !== undefined) found.set(result.id, result.first);
      result = undefined;
    }
    path.pop();
  });
  parser.on('text', (text) => {
    if (!result) return;
    const inResult = path.slice(result.depth);
    if (inResult.join('/') === 'Id') result.id = text.trim();
    else if (inResult.join('/') === 'Values/member' && result.first === undefined) {
      const value = Number(text.trim());
      if (Number.isFinite(value)) result.first = value;
    }
  });
  parser.write(xml).close();
  return found;
}
