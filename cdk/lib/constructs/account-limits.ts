import { Stack } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type { IConstruct } from 'constructs';
import * as z from 'zod';

/** CDK context key: the account's Lambda "Concurrent executions" quota in the stack's region. */
const lambdaConcurrencyQuotaKey = 'lambdaConcurrencyQuota';
/** Lambda's default "Concurrent executions" quota; new accounts may start far lower (10). */
export const defaultLambdaConcurrencyQuota = 1_000;
/**
 * Lambda refuses a reservation that would leave fewer than this many executions unreserved
 * ("You can reserve up to the Unreserved account concurrency value, minus 100"), and so
 * refuses the function's deploy.
 */
const unreservedConcurrencyMinimum = 100;

const quotaSchema = z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).pipe(z.number().int().min(1));

/** `-c lambdaConcurrencyQuota=…` (or a number in cdk.json); absent: Lambda's default. */
function lambdaConcurrencyQuota(value: unknown): number {
  if (value === undefined || value === null || value === '') return defaultLambdaConcurrencyQuota;
  const parsed = quotaSchema.safeParse(value);
  if (!parsed.success) {
    throw new Error(
      `CDK context "${lambdaConcurrencyQuotaKey}" must be a positive integer (the account's Lambda ` +
        `concurrent executions quota), not ${JSON.stringify(value)}.`,
    );
  }
  return parsed.data;
}

/**
 * Why Lambda would refuse these reservations in an account of `quota` concurrent executions,
 * or undefined when it accepts them. Reserving nothing always deploys, whatever the quota.
 */
export function reservedConcurrencyProblem(reserved: readonly number[], quota: number): string | undefined {
  const total = reserved.reduce((sum, n) => sum + n, 0);
  if (total === 0 || total + unreservedConcurrencyMinimum <= quota) return undefined;
  return (
    `the stack reserves ${total} concurrent Lambda executions, but an account whose quota is ${quota} ` +
    `(-c ${lambdaConcurrencyQuotaKey}) may reserve at most ${Math.max(0, quota - unreservedConcurrencyMinimum)}: ` +
    `Lambda keeps ${unreservedConcurrencyMinimum} unreserved, and the deploy would fail. Reserve less, or ask ` +
    `Service Quotas for more and set ${lambdaConcurrencyQuotaKey}.`
  );
}

const checkedStacks = new WeakSet<Stack>();

/**
 * Fails synthesis of `scope`'s stack when its functions' reserved concurrency would not
 * deploy in the account (`lambdaConcurrencyQuota`, read once here so a bad value fails at
 * once). Checked at synthesis, when every function has its final settings; once per stack.
 */
export function checkReservedConcurrency(scope: IConstruct): void {
  const stack = Stack.of(scope);
  if (checkedStacks.has(stack)) return;
  checkedStacks.add(stack);
  const quota = lambdaConcurrencyQuota(stack.node.tryGetContext(lambdaConcurrencyQuotaKey));
  stack.node.addValidation({
    validate: () => {
      const reserved = stack.node
        .findAll()
        .filter((c): c is lambda.CfnFunction => c instanceof lambda.CfnFunction)
        .map((fn) => stack.resolve(fn.reservedConcurrentExecutions) as unknown)
        .filter((n): n is number => typeof n === 'number');
      const problem = reservedConcurrencyProblem(reserved, quota);
      return problem ? [problem] : [];
    },
  });
}
