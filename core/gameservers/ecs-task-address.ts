import { createHash, createHmac } from 'node:crypto';
import { DescribeTasksCommand, type ECSClient } from '@aws-sdk/client-ecs';
import type { ServerLocator } from './server-address';

/** AWS credentials as the SDK clients resolve them. */
export interface SigningCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
  readonly sessionToken?: string;
}

export interface Ec2LookupSettings {
  readonly region: string;
  /** The credentials of the function (the ECS client's provider: one chain for both calls). */
  readonly credentials: () => Promise<SigningCredentials>;
  /** Injected in tests; `fetch` otherwise. */
  readonly fetch?: typeof fetch;
  readonly now?: () => Date;
}

/** The EC2 Query API version whose DescribeNetworkInterfaces answer this parses. */
export const ec2ApiVersion = '2016-11-15';

/**
 * `ec2:DescribeNetworkInterfaces` for one interface → its public IPv4 (`association.publicIp`),
 * or undefined while it has none. A direct Query API call signed with SigV4: the project has no
 * EC2 SDK client and this is its only EC2 call (swap in `@aws-sdk/client-ec2`'s
 * DescribeNetworkInterfacesCommand when the dependency is added; the request is the same).
 */
export function ec2PublicIpLookup(
  settings: Ec2LookupSettings,
): (networkInterfaceId: string) => Promise<string | undefined> {
  const send = settings.fetch ?? fetch;
  const host = `ec2.${settings.region}.amazonaws.com`;
  return async (networkInterfaceId) => {
    const body = new URLSearchParams({
      Action: 'DescribeNetworkInterfaces',
      Version: ec2ApiVersion,
      'NetworkInterfaceId.1': networkInterfaceId,
    }).toString();
    const headers = signQuery({
      host,
      region: settings.region,
      service: 'ec2',
      body,
      credentials: await settings.credentials(),
      now: settings.now?.() ?? new Date(),
    });
    const response = await send(`https://${host}/`, { method: 'POST', headers, body });
    const text = await response.text();
    if (!response.ok) {
      const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? String(response.status);
      // A deleted interface (the task stopped): there is no address to find.
      if (code === 'InvalidNetworkInterfaceID.NotFound') return undefined;
      throw new Error(`ec2:DescribeNetworkInterfaces failed (${code}).`);
    }
    return /<association>[\s\S]*?<publicIp>([^<]+)<\/publicIp>/.exec(text)?.[1];
  };
}

/** SigV4 headers for a form-encoded POST to `https://<host>/` (the EC2 Query API). */
export function signQuery(request: {
  host: string;
  region: string;
  service: string;
  body: string;
  credentials: SigningCredentials;
  now: Date;
}): Record<string, string> {
  const amzDate = request.now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const headers: Record<string, string> = {
    'content-type': 'application/x-www-form-urlencoded; charset=utf-8',
    host: request.host,
    'x-amz-date': amzDate,
    ...(request.credentials.sessionToken ? { 'x-amz-security-token': request.credentials.sessionToken } : {}),
  };
  const names = Object.keys(headers).sort();
  const signedHeaders = names.join(';');
  const canonical = [
    'POST',
    '/',
    '',
    ...names.map((name) => `${name}:${headers[name]}`),
    '',
    signedHeaders,
    sha256(request.body),
  ].join('\n');
  const scope = `${day}/${request.region}/${request.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  let key: Buffer = hmac(`AWS4${request.credentials.secretAccessKey}`, day);
  for (const part of [request.region, request.service, 'aws4_request']) key = hmac(key, part);
  const signature = createHmac('sha256', key).update(toSign).digest('hex');
  return {
    ...headers,
    authorization: `AWS4-HMAC-SHA256 Credential=${request.credentials.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * Where players reach an ECS task: DescribeTasks (this cluster) → the task's ENI id →
 * DescribeNetworkInterfaces → its public IPv4. Tasks run in public subnets with
 * `assignPublicIp: ENABLED` (cdk/lib/constructs/game-server-fleet.ts); the IP is attached with
 * the ENI while the task provisions, so by `inited` (the game is running) it is there.
 * Undefined while the task or its address is not known yet; never the private IP, which no
 * player can reach.
 */
export function ecsTaskLocator(
  ecs: ECSClient,
  cluster: string,
  publicIpOf: (networkInterfaceId: string) => Promise<string | undefined>,
): ServerLocator {
  return async (room) => {
    const taskArn = room.placement?.taskId;
    // Not placed yet (inited before RunTask's answer was recorded): the retried inited finds it.
    if (!taskArn) return undefined;
    const { tasks } = await ecs.send(new DescribeTasksCommand({ cluster, tasks: [taskArn] }));
    const eni = tasks?.[0]?.attachments
      ?.filter((attachment) => attachment.type === 'ElasticNetworkInterface')
      .flatMap((attachment) => attachment.details ?? [])
      .find((detail) => detail.name === 'networkInterfaceId')?.value;
    return eni ? publicIpOf(eni) : undefined;
  };
}
