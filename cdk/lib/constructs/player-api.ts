import { Duration, Validations } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import {
  CorsHttpMethod,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  LogGroupLogDestination,
  type CfnStage,
  type HttpRoute,
  type HttpStage,
  type ThrottleSettings,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpJwtAuthorizer } from 'aws-cdk-lib/aws-apigatewayv2-authorizers';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { runTaskRate } from '../../../core/gameservers/throttled-spawner';
import { corsPolicy } from '../../../lambdas/http/cors';
import { routes, type RouteDefinition, type RouteId } from '../../../lambdas/http/routes';
import { bindCostBounds } from './cost-bounds';
import { bindNeeds, type PlatformResources } from './platform-resources';
import { ProjectFunction, type TableAccess } from './project-function';
import { consoleBuildCommands } from './console-bundle';
import { StackPart } from './stack-part';

/**
 * The only paths that may skip the JWT authorizer, each with why: nothing with player data.
 * The console's files are public; what it shows comes from the admin API with a token.
 */
const publicPaths: ReadonlyMap<string, string> = new Map([
  ['/health', 'a liveness probe for load balancers and uptime checks: it must answer without a token'],
  ['/console', "the operator console's address: it only redirects to /console/"],
  ['/console/{path+}', "the operator console's static files: its data comes from the admin API with a token"],
]);

/** Local cloud helpers (dev tokens…) live here; nothing under it may ever be deployed. */
const devPathPrefix = '/v1/dev/';

/** Routes that exist in AWS: everything but the local cloud's `localOnly` helpers. */
export function deployableRoutes(table: readonly RouteDefinition[] = routes): RouteDefinition[] {
  return table.filter((route) => !route.localOnly);
}

/**
 * Table access per route where it differs from the default (GET reads, every other method
 * reads and writes). Keep it least privilege: a route that only reads says so here.
 */
const routeTableAccess: Partial<Record<RouteId, TableAccess>> = { getRoom: 'read' };

export function tableAccessFor(route: RouteDefinition): TableAccess {
  return routeTableAccess[route.id as RouteId] ?? (route.method === 'GET' ? 'read' : 'readWrite');
}

/** API Gateway gives up on an integration after 30 s: a route's function must stop before. */
const maxHttpTimeoutS = 29;

/** `$context` fields of one access log line. No header, token or body is logged. */
const accessLogFields = {
  requestId: '$context.requestId',
  requestTime: '$context.requestTime',
  sourceIp: '$context.identity.sourceIp',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
  authorizerError: '$context.authorizer.error',
};

export interface PlayerApiProps {
  readonly platform: PlatformResources;
  /** Name of the HTTP API (`roomkeeper-prod`). */
  readonly namePrefix: string;
  /** The JWT authorizer's audience (the issuer is `platform.auth`'s). */
  readonly audience: string;
  /** Stage-wide default throttling. @default 500 requests/s, bursts of 1,000 */
  readonly throttle?: ThrottleSettings;
  /** @default lambdas/http/routes.ts */
  readonly routes?: readonly RouteDefinition[];
  /** Throttle of each route that starts game servers. @default ECS's RunTask rate (core/gameservers/throttled-spawner.ts) */
  readonly spawnRouteThrottle?: ThrottleSettings;
  /** Origins a browser game may call the API from (`*` for any). @default none: no CORS */
  readonly corsOrigins?: readonly string[];
}

/**
 * The player API: an HTTP API behind a JWT authorizer, with access logs, and one route with
 * its own Lambda function per entry of lambdas/http/routes.ts that is not local-only.
 */
export class PlayerApi extends StackPart {
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly routeFunctions: ReadonlyMap<string, ProjectFunction>;
  /** Every route function logs here: one log group for the API instead of one per route. */
  private readonly routeLogs: logs.LogGroup;

  constructor(scope: Construct, id: string, props: PlayerApiProps) {
    super(scope, id);
    const { platform } = props;
    const accessLogs = new logs.LogGroup(this, 'ApiAccessLogs', { retention: platform.logRetention });
    this.routeLogs = new logs.LogGroup(this, 'RouteLogs', { retention: platform.logRetention });
    this.api = this.newHttpApi(props);
    this.stage = this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? { rateLimit: 500, burstLimit: 1000 },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(JSON.stringify(accessLogFields)),
      },
    });
    // A route that starts game servers asks ECS's RunTask no faster than the account allows
    // on its own; both together may reach twice that, which the spawner absorbs by waiting
    // (ThrottledSpawner) for as long as the caller is held.
    const spawnThrottle = props.spawnRouteThrottle ?? {
      rateLimit: runTaskRate.ratePerS,
      burstLimit: runTaskRate.burst,
    };
    // CloudFormation's own casing: CfnStage passes RouteSettings through untouched (it is JSON).
    const routeSettings: Record<string, { ThrottlingRateLimit?: number; ThrottlingBurstLimit?: number }> = {};
    const routeFunctions = new Map<string, ProjectFunction>();
    for (const route of deployableRoutes(props.routes)) {
      checkRoute(route);
      const { fn, apiRoutes } = this.addRoute(route, platform);
      if (route.needs?.includes('spawn')) {
        routeSettings[`${route.method} ${route.path}`] = {
          ThrottlingRateLimit: spawnThrottle.rateLimit,
          ThrottlingBurstLimit: spawnThrottle.burstLimit,
        };
        // Route settings name existing routes only.
        this.stage.node.addDependency(...apiRoutes);
      }
      routeFunctions.set(route.id, fn);
    }
    this.routeFunctions = routeFunctions;
    if (Object.keys(routeSettings).length > 0) {
      (this.stage.node.defaultChild as CfnStage).routeSettings = routeSettings;
    }
    // A configuration's own image runs on ECS: its PUT registers a task definition revision.
    routeFunctions.get('putGameConfiguration')?.bindTaskDefinitions(platform.fleet);
    for (const fn of routeFunctions.values()) bindCostBounds(fn, platform.costBounds);
  }

  private newHttpApi(props: PlayerApiProps): HttpApi {
    const cors = corsPolicy(props.corsOrigins ?? []);
    return new HttpApi(this, 'HttpApi', {
      apiName: props.namePrefix,
      description: 'Roomkeeper player API',
      createDefaultStage: false,
      // API Gateway answers preflights itself (no OPTIONS route, so no authorizer runs) and
      // adds the headers to every answer to an allowed origin, as the local gateway does.
      ...(cors
        ? {
            corsPreflight: {
              allowOrigins: [...cors.allowOrigins],
              allowMethods: cors.allowMethods.map((method) => CorsHttpMethod[method as keyof typeof CorsHttpMethod]),
              allowHeaders: [...cors.allowHeaders],
              exposeHeaders: [...cors.exposeHeaders],
              maxAge: Duration.seconds(cors.maxAgeS),
            },
          }
        : {}),
      // Every route is behind the JWT authorizer unless it opts out below.
      defaultAuthorizer: new HttpJwtAuthorizer('JwtAuthorizer', props.platform.auth.issuer, {
        jwtAudience: [props.audience],
      }),
    });
  }

  /** The route's function (its table access, auth and declared needs) and its API route. */
  private addRoute(
    route: RouteDefinition,
    platform: PlatformResources,
  ): { fn: ProjectFunction; apiRoutes: HttpRoute[] } {
    const isPublic = route.auth === 'public';
    const fn = new ProjectFunction(this, `Route-${route.id}`, {
      entry: route.entry,
      description: `${route.method} ${route.path}`,
      ...(route.timeoutS !== undefined ? { timeout: Duration.seconds(route.timeoutS) } : {}),
      logGroup: this.routeLogs,
      ...(route.files === 'console' ? { afterBundling: consoleBuildCommands } : {}),
    })
      .bindTable(platform.table, tableAccessFor(route))
      .bindAuth(platform.auth);
    bindNeeds(fn, route.needs ?? [], platform);
    const apiRoutes = this.api.addRoutes({
      path: route.path,
      methods: [HttpMethod[route.method]],
      integration: new HttpLambdaIntegration(`${route.id}Integration`, fn.function),
      ...(isPublic ? { authorizer: new HttpNoneAuthorizer() } : {}),
      // API Gateway rejects a token without the scope before the handler (which checks again) runs.
      ...(route.scope ? { authorizationScopes: [route.scope] } : {}),
    });
    if (isPublic) {
      for (const apiRoute of apiRoutes) {
        Validations.of(apiRoute).acknowledge({
          id: 'AwsSolutions-APIG4',
          reason: `${route.path} is ${publicPaths.get(route.path)}; it returns no player data.`,
        });
      }
    }
    return { fn, apiRoutes };
  }
}

/** Fails synthesis on a route that must not be deployed as written. */
function checkRoute(route: RouteDefinition): void {
  if (route.path.startsWith(devPathPrefix)) {
    throw new Error(`Route ${route.id} (${route.path}) is a local-only dev route but is not marked localOnly.`);
  }
  if (route.auth === 'public' && !publicPaths.has(route.path)) {
    throw new Error(
      `Route ${route.id} (${route.method} ${route.path}) is public, but only ${[...publicPaths.keys()].join(', ')} may skip the authorizer.`,
    );
  }
  if (route.timeoutS !== undefined && route.timeoutS > maxHttpTimeoutS) {
    throw new Error(
      `Route ${route.id}: timeoutS ${route.timeoutS} exceeds API Gateway's limit (${maxHttpTimeoutS} s).`,
    );
  }
}
