/**
 * The AWS quotas and fixed limits a deployment runs into, with their defaults and the page
 * each one is documented on. Defaults are per account and Region; new accounts may start
 * lower (the Service Quotas console shows an account's own values).
 */
export interface AwsLimit {
  /** The name Service Quotas or the page gives it. */
  readonly name: string;
  readonly value: number;
  readonly unit: string;
  /** Whether a quota increase can raise it. */
  readonly adjustable: boolean;
  readonly source: string;
}

export type LimitId =
  | 'fargateVcpu'
  | 'networkInterfaces'
  | 'fargateLaunchRate'
  | 'lambdaConcurrency'
  | 'sqsFifoTps'
  | 'sqsFifoHighThroughputTps'
  | 'apiGatewayRps'
  | 'dynamoTableWrites'
  | 'dynamoNewTableWrites'
  | 'dynamoPartitionWrites'
  | 'dynamoPartitionReads';

const ecsQuotas = 'https://docs.aws.amazon.com/general/latest/gr/ecs-service.html#service-quotas-fargate';
const fargateThrottling = 'https://docs.aws.amazon.com/AmazonECS/latest/developerguide/throttling.html';
const sqsQuotas = 'https://docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-messages.html';
const dynamoQuotas = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html';
const dynamoOnDemand = 'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html';
const dynamoPartitions =
  'https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html';

export const awsDefaultLimits: Readonly<Record<LimitId, AwsLimit>> = {
  fargateVcpu: {
    name: 'Fargate On-Demand vCPU resource count',
    value: 6,
    unit: 'vCPU',
    adjustable: true,
    source: ecsQuotas,
  },
  networkInterfaces: {
    name: 'Network interfaces per Region',
    value: 5_000,
    unit: 'ENIs',
    adjustable: true,
    source: 'https://docs.aws.amazon.com/vpc/latest/userguide/amazon-vpc-limits.html#vpc-limits-enis',
  },
  // RunTask itself allows 20 calls a second with up to 10 tasks each, but every room's task
  // carries its own overrides: one call per server. Fargate's launch bucket refills at the
  // same 20 tasks a second (bursts of 100).
  fargateLaunchRate: {
    name: 'Fargate resource rate for On-Demand ECS tasks (sustained) and RunTask calls',
    value: 20,
    unit: 'starts/s',
    adjustable: false,
    source: fargateThrottling,
  },
  lambdaConcurrency: {
    name: 'Lambda concurrent executions',
    value: 1_000,
    unit: 'executions',
    adjustable: true,
    source: 'https://docs.aws.amazon.com/lambda/latest/dg/gettingstarted-limits.html',
  },
  sqsFifoTps: {
    name: 'SQS FIFO transactions per second per API action',
    value: 300,
    unit: 'calls/s',
    adjustable: false,
    source: sqsQuotas,
  },
  // 70,000 in US East (N. Virginia), US West (Oregon) and Europe (Ireland); the lowest Region
  // default is the one every Region meets.
  sqsFifoHighThroughputTps: {
    name: 'SQS FIFO high-throughput transactions per second per API action (lowest Region default)',
    value: 2_400,
    unit: 'calls/s',
    adjustable: true,
    source: sqsQuotas,
  },
  apiGatewayRps: {
    name: 'API Gateway throttle quota per account, per Region',
    value: 10_000,
    unit: 'requests/s',
    adjustable: true,
    source: 'https://docs.aws.amazon.com/apigateway/latest/developerguide/limits.html',
  },
  dynamoTableWrites: {
    name: 'DynamoDB table-level write throughput (on-demand)',
    value: 40_000,
    unit: 'WCU/s',
    adjustable: true,
    source: dynamoQuotas,
  },
  dynamoNewTableWrites: {
    name: 'DynamoDB new on-demand table, writes served at once (its warm throughput)',
    value: 4_000,
    unit: 'WCU/s',
    adjustable: true,
    source: dynamoOnDemand,
  },
  dynamoPartitionWrites: {
    name: 'DynamoDB writes per partition',
    value: 1_000,
    unit: 'WCU/s',
    adjustable: false,
    source: dynamoPartitions,
  },
  dynamoPartitionReads: {
    name: 'DynamoDB reads per partition',
    value: 3_000,
    unit: 'RCU/s',
    adjustable: false,
    source: dynamoPartitions,
  },
};
