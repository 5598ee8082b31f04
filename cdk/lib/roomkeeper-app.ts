import type { CostBoundSettings } from './constructs/cost-bounds';
import { Annotations, type App, Validations } from 'aws-cdk-lib';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as z from 'zod';
import { AwsSolutionsChecks } from 'cdk-nag';
import { CorsOriginInvalidError, corsOriginsSchema, parseCorsOrigins } from '../../lambdas/http/cors';
import { RoomkeeperStack, type RoomkeeperStackProps } from './roomkeeper-stack';
import { scaleContext } from './scale/context';

/**
 * Placeholders that let `cdk synth` run offline. Deploy with real values:
 * `cdk deploy -c stage=prod -c authIssuer=https://idp.example/ -c authAudience=roomkeeper`
 * The authorizer and the handlers find the signing keys from the issuer alone (its OpenID
 * discovery document names them). With Cognito, `authAudience` is the app client id: access
 * tokens carry it as `client_id` (no `aud`), ID tokens as `aud`; the authorizer and the
 * handlers accept both alike.
 */
const authPlaceholders = {
  authIssuer: 'https://auth.roomkeeper.invalid/',
  authAudience: 'roomkeeper-api',
} as const;

/**
 * Context keys the app refuses, with why: a deploy command or cdk.json that still passes one
 * would otherwise deploy something other than what it says, silently.
 */
const refusedContext: Readonly<Record<string, string>> = {
  authJwksUrl:
    "the JWT authorizer and the handlers both find the identity provider's signing keys through authIssuer's " +
    'OpenID discovery document (<authIssuer>/.well-known/openid-configuration names its jwks_uri), so a separate ' +
    'key set address could only disagree with the one the authorizer uses. Remove it from the command line, ' +
    'cdk.json and cdk.context.json',
};

function refuseRemovedContext(app: App): void {
  for (const [key, why] of Object.entries(refusedContext)) {
    const value: unknown = app.node.tryGetContext(key);
    if (value !== undefined && value !== null && value !== '') {
      throw new Error(`CDK context "${key}" is not accepted: ${why}.`);
    }
  }
}

/**
 * The game server image when the context names none: a name only, so `cdk synth` runs
 * offline; tasks cannot start until `-c gameImage=<registry>/<name>:<tag>` names a real one.
 */
export const gameImagePlaceholder = 'public.ecr.aws/roomkeeper/game-server-placeholder:latest';

function contextString(app: App, key: string): string | undefined {
  const value: unknown = app.node.tryGetContext(key);
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw new Error(`CDK context "${key}" must be a string.`);
  return value;
}

/** `gamePorts` from cdk.json (a number) or `-c gamePorts=8` (a string). */
function contextPorts(app: App): number | undefined {
  const value: unknown = app.node.tryGetContext('gamePorts');
  if (value === undefined || value === null || value === '') return undefined;
  const ports = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof ports !== 'number' || !Number.isInteger(ports) || ports < 1 || ports > 16) {
    throw new Error(`CDK context "gamePorts" must be an integer from 1 to 16, not ${JSON.stringify(value)}.`);
  }
  return ports;
}

/** `hostClusters` (`-c hostClusters=games-b,games-c`): other clusters ECS hosts may name. */
function hostClustersContext(app: App): Pick<RoomkeeperStackProps, 'hostClusters'> {
  const value = contextString(app, 'hostClusters');
  if (value === undefined) return {};
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!/^[A-Za-z0-9_-]{1,255}$/.test(name))
      throw new Error(`CDK context "hostClusters" must be ECS cluster names separated by commas, not "${value}".`);
  }
  return { hostClusters: names };
}

/**
 * `corsOrigins`: origins browser games may call the API from, comma-separated
 * (`-c corsOrigins=https://play.example.com,https://beta.example.com`, or `*`), or a list in
 * cdk.json. Absent: no CORS.
 */
function corsContext(app: App): Pick<RoomkeeperStackProps, 'corsOrigins'> {
  const value: unknown = app.node.tryGetContext('corsOrigins');
  if (value === undefined || value === null || value === '') return {};
  if (Array.isArray(value)) {
    const parsed = corsOriginsSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new CorsOriginInvalidError(
        `CDK context "corsOrigins": "${String(value[Number(issue?.path[0])])}" ${issue?.message ?? 'is not an origin'}.`,
      );
    }
    return { corsOrigins: parsed.data };
  }
  if (typeof value !== 'string') throw new Error('CDK context "corsOrigins" must be a string or a list of origins.');
  return { corsOrigins: parseCorsOrigins(value, 'CDK context "corsOrigins"') };
}

/** `protocol:port` or `protocol:from-to`, protocol `tcp` or `udp` (`udp:3478`, `tcp:5222-5230`). */
const egressItemPattern = /^(tcp|udp):(\d{1,5})(?:-(\d{1,5}))?$/;
const egressContextSchema = z.union([z.string(), z.array(z.string())]);

function egressPort(item: string): ec2.Port {
  const match = egressItemPattern.exec(item);
  const from = Number(match?.[2]);
  const to = match?.[3] === undefined ? from : Number(match[3]);
  if (!match || from < 1 || to > 65_535 || from > to) {
    throw new Error(
      `CDK context "gameServerEgress": "${item}" is not protocol:port or protocol:from-to, with protocol tcp or ` +
        'udp and ports from 1 to 65535, the first not above the last (for example udp:3478,tcp:5222-5230).',
    );
  }
  if (match[1] === 'udp') return from === to ? ec2.Port.udp(from) : ec2.Port.udpRange(from, to);
  return from === to ? ec2.Port.tcp(from) : ec2.Port.tcpRange(from, to);
}

/**
 * `gameServerEgress`: what game servers may reach beyond HTTPS, on any IPv4 destination
 * (docs/ecs-fleet.md), comma-separated (`-c gameServerEgress=udp:3478,tcp:5222-5230`) or a
 * list in cdk.json. Absent: HTTPS only.
 */
function egressContext(app: App): Pick<RoomkeeperStackProps, 'gameServerEgress'> {
  const value: unknown = app.node.tryGetContext('gameServerEgress');
  if (value === undefined || value === null || value === '') return {};
  const parsed = egressContextSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error('CDK context "gameServerEgress" must be a comma-separated string or a list of protocol:ports.');
  }
  const items = (typeof parsed.data === 'string' ? parsed.data.split(',') : parsed.data)
    .map((item) => item.trim())
    .filter(Boolean);
  return { gameServerEgress: items.map(egressPort) };
}

/** `alarmEmail` and `monthlyBudgetUsd` (`-c monthlyBudgetUsd=200`), both optional. */
function operationsContext(app: App): Pick<RoomkeeperStackProps, 'alarmEmail' | 'monthlyBudgetUsd'> {
  const alarmEmail = contextString(app, 'alarmEmail');
  if (alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(alarmEmail)) {
    throw new Error(`CDK context "alarmEmail" must be an email address, not "${alarmEmail}".`);
  }
  const budget: unknown = app.node.tryGetContext('monthlyBudgetUsd');
  let monthlyBudgetUsd: number | undefined;
  if (budget !== undefined && budget !== null && budget !== '') {
    monthlyBudgetUsd = typeof budget === 'string' && /^\d+(\.\d+)?$/.test(budget) ? Number(budget) : (budget as number);
    if (typeof monthlyBudgetUsd !== 'number' || !(monthlyBudgetUsd > 0)) {
      throw new Error(
        `CDK context "monthlyBudgetUsd" must be a positive number of USD, not ${JSON.stringify(budget)}.`,
      );
    }
  }
  return {
    ...(alarmEmail !== undefined ? { alarmEmail } : {}),
    ...(monthlyBudgetUsd !== undefined ? { monthlyBudgetUsd } : {}),
  };
}

/** Cost bounds from the CDK context (`-c maxRunningServers=500`, docs/cost-bounds.md); unset keys keep the defaults. */
function contextCostBounds(app: App): CostBoundSettings {
  const bounds: Record<string, number> = {};
  for (const key of costBoundContextKeys) {
    const value: unknown = app.node.tryGetContext(key);
    if (value === undefined || value === null || value === '') continue;
    const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 1) {
      throw new Error(`CDK context "${key}" must be a positive integer, not ${JSON.stringify(value)}.`);
    }
    bounds[key] = n;
  }
  return bounds;
}

export const costBoundContextKeys = [
  'emptyRoomGraceS',
  'maxLifetimeS',
  'maxRunningServers',
  'maxServersPerConfiguration',
  'orphanGraceS',
] as const satisfies readonly (keyof CostBoundSettings)[];

/**
 * Adds the Roomkeeper stack for the `stage` context value (default `dev`) to `app`, with the
 * AwsSolutions cdk-nag pack as a validation plugin: an unacknowledged finding fails synthesis.
 * `cdk/app.ts` and the CDK tests both build the app through here; only tests pass `overrides`.
 */
export function addRoomkeeper(app: App, overrides: Partial<RoomkeeperStackProps> = {}): RoomkeeperStack {
  const stage = contextString(app, 'stage') ?? 'dev';
  if (!/^[a-z][a-z0-9-]{0,19}$/.test(stage)) {
    throw new Error(`CDK context "stage" must be lower-case letters, digits and dashes, not "${stage}".`);
  }
  refuseRemovedContext(app);
  const missing = (Object.keys(authPlaceholders) as (keyof typeof authPlaceholders)[]).filter(
    (key) => contextString(app, key) === undefined,
  );
  const auth = {
    issuer: contextString(app, 'authIssuer') ?? authPlaceholders.authIssuer,
    audience: contextString(app, 'authAudience') ?? authPlaceholders.authAudience,
  };

  const stack = new RoomkeeperStack(app, `Roomkeeper-${stage}`, {
    description: `Roomkeeper game-session platform (${stage})`,
    namePrefix: `roomkeeper-${stage}`,
    auth,
    gameImage: contextString(app, 'gameImage') ?? gameImagePlaceholder,
    gamePorts: contextPorts(app) ?? 4,
    ...hostClustersContext(app),
    ...egressContext(app),
    ...operationsContext(app),
    ...corsContext(app),
    ...scaleContext(app),
    costBounds: contextCostBounds(app),
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    ...overrides,
  });
  if (missing.length > 0) {
    Annotations.of(stack).addWarningV2(
      'roomkeeper:auth-placeholder',
      `No ${missing.join(', ')} in the CDK context: placeholders are used, and no token will be accepted.`,
    );
  }

  if (stack.fleet.game.imageName === gameImagePlaceholder) {
    Annotations.of(stack).addWarningV2(
      'roomkeeper:game-image-placeholder',
      `No gameImage in the CDK context: game server tasks would pull the placeholder ${gameImagePlaceholder} and fail.`,
    );
  }

  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return stack;
}
