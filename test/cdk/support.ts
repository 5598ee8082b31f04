import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { App, type Stack } from 'aws-cdk-lib';
import { Match, type Template } from 'aws-cdk-lib/assertions';
import type { CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type { ProjectFunction } from '../../cdk/lib/constructs/project-function';

/** Helpers shared by the CDK tests (not a test file: jest only runs `*.test.ts`). */

export type Json = Record<string, any>;

export const repoRoot = path.resolve(__dirname, '..', '..');
const cdkJson = JSON.parse(fs.readFileSync(path.join(repoRoot, 'cdk.json'), 'utf8')) as { context: Json };

export const auth = {
  authIssuer: 'https://issuer.roomkeeper.test/',
  authAudience: 'roomkeeper-test-api',
};

/** A game image for tests that do not test the placeholder (which makes synthesis warn). */
export const gameImage = 'public.ecr.aws/roomkeeper-test/arena:1.0.0';

/** A scratch directory for the apps of one test file; call the returned function in `afterAll`. */
export function useScratch(): { newApp: (context?: Json) => App; cleanUp: () => void } {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'roomkeeper-cdk-test-'));
  return {
    /** An app configured like `cdk.json`, writing under the scratch dir, with asset bundling off. */
    newApp: (context: Json = {}) => {
      const outdir = fs.mkdtempSync(path.join(scratch, 'app-'));
      return new App({ outdir, context: { ...cdkJson.context, 'aws:cdk:bundling-stacks': [], ...context } });
    },
    cleanUp: () => fs.rmSync(scratch, { recursive: true, force: true }),
  };
}

export function asArray<T>(value: T | T[] | undefined): T[] {
  if (value === undefined) return [];
  return Array.isArray(value) ? value : [value];
}

export interface Statement {
  readonly owner: string;
  readonly actions: string[];
  readonly resources: unknown[];
  readonly effect: string;
  readonly condition?: Json;
}

/** Every statement of every identity policy in the template (policies, managed policies, inline role policies). */
export function identityStatements(template: Template): Statement[] {
  const documents: [string, Json][] = [];
  for (const type of ['AWS::IAM::Policy', 'AWS::IAM::ManagedPolicy']) {
    for (const [id, resource] of Object.entries(template.findResources(type))) {
      documents.push([id, resource.Properties.PolicyDocument]);
    }
  }
  for (const [id, resource] of Object.entries(template.findResources('AWS::IAM::Role'))) {
    for (const policy of asArray<Json>(resource.Properties.Policies)) documents.push([id, policy.PolicyDocument]);
  }
  return documents.flatMap(([owner, document]) =>
    asArray<Json>(document.Statement).map((statement) => ({
      owner,
      actions: asArray<string>(statement.Action),
      resources: asArray<unknown>(statement.Resource),
      effect: statement.Effect as string,
      condition: statement.Condition as Json | undefined,
    })),
  );
}

/** The statements of the policies attached to the role with this logical id. */
export function roleStatements(template: Template, roleLogicalId: string): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy', {
    Properties: { Roles: Match.arrayWith([{ Ref: roleLogicalId }]) },
  });
  return identityStatements(template).filter((s) => s.owner in policies);
}

export function logicalId(stack: Stack, fn: ProjectFunction): string {
  return stack.getLogicalId(fn.function.node.defaultChild as CfnFunction);
}

/** The statements of the role policy attached to one function's role. */
export function statementsOf(template: Template, stack: Stack, fn: ProjectFunction): Statement[] {
  return roleStatements(template, stack.getLogicalId(fn.role.node.defaultChild as never));
}

/**
 * A CloudFormation value as one string, for comparing ARNs: `{Ref: X}` → `${X}`,
 * `{Fn::GetAtt: [X, Arn]}` → `${X.Arn}`, `Fn::Join` joined, `Fn::Sub` as its template.
 */
export function render(value: unknown): string {
  if (typeof value === 'string') return value;
  const v = value as Json;
  if (typeof v.Ref === 'string') return `\${${v.Ref}}`;
  if (Array.isArray(v['Fn::GetAtt'])) return `\${${(v['Fn::GetAtt'] as string[]).join('.')}}`;
  if (Array.isArray(v['Fn::Join'])) {
    const [separator, parts] = v['Fn::Join'] as [string, unknown[]];
    return parts.map(render).join(separator);
  }
  if (typeof v['Fn::Sub'] === 'string') return v['Fn::Sub'] as string;
  throw new Error(`Cannot render ${JSON.stringify(value)}`);
}

/**
 * A function's environment with every CloudFormation value rendered (see `render`). In a URL
 * (`https://${Api}.execute-api.${AWS::Region}…`) a pseudo parameter's `::` would read as a port,
 * so there it renders as `${AWS-Region}`: a host the config schema's URL check accepts.
 */
export function renderedEnvironment(template: Template, functionLogicalId: string): Record<string, string> {
  const variables = template.toJSON().Resources[functionLogicalId].Properties.Environment.Variables as Json;
  const urlSafe = (text: string) =>
    /^(https|wss):\/\//.test(text) ? text.replace(/\$\{AWS::(\w+)\}/g, '${AWS-$1}') : text;
  return Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, urlSafe(render(value))]));
}
